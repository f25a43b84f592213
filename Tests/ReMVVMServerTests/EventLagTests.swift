import ConcurrencyKit
import HTTPTestSupport
import Logging
import Synchronization
import MicroHTTP
import ReMVVM
import ReMVVMServer
import Testing

/// The event publisher's bounds: what happens when reduces outpace encoding.
@Suite(.serialized) struct EventLagTests {
    /// Lets a test hold the event publisher inside `encode(to:)`.
    final class Gate: Sendable {
        private struct State {
            var closed = false
            /// Threads that found the gate closed and wait in ``pass()``.
            var waiting = 0
        }

        private let state = Lock(State())

        func close() {
            state.withLock { $0.closed = true }
        }

        func open() {
            state.withLock { $0.closed = false }
            state.notifyAll()
        }

        /// Blocks while the gate is closed.
        func pass() {
            state.withLock { $0.waiting += 1 }
            state.notifyAll()
            state.withLock(waitingUntil: { !$0.closed }) { $0.waiting -= 1 }
        }

        /// Waits until a thread is blocked in ``pass()``; false after `timeout`.
        func waitForEntry(timeout: Duration = .seconds(5)) -> Bool {
            state.wait(timeout: timeout) { $0.closed && $0.waiting > 0 }
        }
    }

    static let gate = Gate()

    struct Counter: StoreState, Codable {
        var count = 0

        func encode(to encoder: any Encoder) throws {
            EventLagTests.gate.pass()
            var container = encoder.singleValueContainer()
            try container.encode(count)
        }
    }

    struct Bump: StoreAction, Codable {}

    enum BumpReducer: Reducer {
        static func reduce(state: Counter, with action: Bump) -> Counter { Counter(count: state.count + 1) }
    }

    @Test func publisherFallingBehindItsBudgetDropsWaitingVersionsAndSubscribersRestartFromTheNewest() throws {
        var service = ServiceConfiguration()
        service.eventLagBudgetBytes = 1  // the floor applies: 64 versions may wait
        let store = try Store(state: Counter(), reducer: BumpReducer.self)
        let server = try Self.bumpServer(store, service: service)
        defer { server.shutdown() }

        let lagging = try SSEClient(port: server.port, path: "/events")
        #expect(try lagging.nextEvent(timeout: .seconds(5))?.version == 0)

        Self.gate.close()
        store.dispatch(action: Bump())
        #expect(Self.gate.waitForEntry(), "the publisher is encoding version 1")
        for _ in 0..<200 {
            store.dispatch(action: Bump())
        }
        Self.gate.open()

        // Version 1 was already being encoded; then the subscriber is cut, versions 2... never sent.
        #expect(try lagging.nextEvent(timeout: .seconds(5))?.version == 1)
        #expect(try lagging.waitForEnd(timeout: .seconds(5)) == .clean)

        let fresh = try SSEClient(port: server.port, path: "/events")
        #expect(try fresh.nextEvent(timeout: .seconds(5))?.data == #"{"version":201,"action":{"type":"bump"},"state":201}"#)
        store.dispatch(action: Bump())
        #expect(try fresh.nextEvent(timeout: .seconds(5))?.version == 202)
    }

    /// Counts how often it is encoded.
    struct Counted: StoreState, Codable {
        static let encodes = Atomic<Int>(0)
        var count = 0

        func encode(to encoder: any Encoder) throws {
            Self.encodes.add(1, ordering: .relaxed)
            var container = encoder.singleValueContainer()
            try container.encode(count)
        }
    }

    enum CountedReducer: Reducer {
        static func reduce(state: Counted, with action: Bump) -> Counted { Counted(count: state.count + 1) }
    }

    /// Holds version 1 at `first`, takes 3 ms of work to encode version 2, holds version 3 at `third`.
    struct Paced: StoreState, Codable {
        static let first = Gate()
        static let third = Gate()
        var count = 0

        func encode(to encoder: any Encoder) throws {
            switch count {
            case 1: Self.first.pass()
            case 2:
                let started = MonotonicClock.nanoseconds()
                while MonotonicClock.nanoseconds() - started < 3_000_000 {}  // a slow encoding, not a wait
            case 3: Self.third.pass()
            default: break
            }
            var container = encoder.singleValueContainer()
            try container.encode(count)
        }
    }

    enum PacedReducer: Reducer {
        static func reduce(state: Paced, with action: Bump) -> Paced { Paced(count: state.count + 1) }
    }

    /// Versions taken in one batch go out together unless encoding them takes long: then each goes
    /// out when it is ready (a very large state's events are not held back by the ones after them).
    @Test func aVersionSlowToEncodeIsSentBeforeTheNextOneIsEncoded() throws {
        let store = try Store(state: Paced(), reducer: PacedReducer.self)
        let server = try Self.bumpServer(store)
        defer { server.shutdown() }
        let subscriber = try SSEClient(port: server.port, path: "/events")
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 0)

        Paced.first.close()
        Paced.third.close()
        defer {
            Paced.first.open()
            Paced.third.open()
        }
        store.dispatch(action: Bump())
        #expect(Paced.first.waitForEntry(), "the publisher is encoding version 1")
        store.dispatch(action: Bump())
        store.dispatch(action: Bump())  // versions 2 and 3 wait, and are taken as one batch
        Paced.first.open()

        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 1)
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 2, "version 2 is sent while version 3 is being encoded")
        #expect(Paced.third.waitForEntry(), "the publisher is encoding version 3")
        Paced.third.open()
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 3)
    }

    /// `store` served on a free port with the action `bump`, no view models; started.
    static func bumpServer<State: StoreState & Codable>(
        _ store: Store<State>,
        service: ServiceConfiguration = ServiceConfiguration()
    ) throws -> ReMVVMServer<State> {
        var actions = ActionRegistry()
        actions.register(Bump.self, as: "bump")
        var http = HTTPServerConfiguration()
        http.port = 0
        let server = ReMVVMServer(
            store: store, actions: actions, viewModels: ViewModelRegistry<State>(), http: http, service: service,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try server.start()
        return server
    }

    @Test(arguments: [1, 20])
    func eachVersionIsEncodedOnceWhateverTheNumberOfSubscribers(subscriberCount: Int) throws {
        let store = try Store(state: Counted(), reducer: CountedReducer.self)
        let server = try Self.bumpServer(store)
        defer { server.shutdown() }
        let subscribers = try (0..<subscriberCount).map { _ in try SSEClient(port: server.port, path: "/events") }
        for subscriber in subscribers {
            #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 0)
        }
        let encodesBefore = Counted.encodes.load(ordering: .relaxed)

        for _ in 0..<50 {
            store.dispatch(action: Bump())
        }
        for subscriber in subscribers {
            var last: UInt64?
            while last != 50, let event = try subscriber.nextEvent(timeout: .seconds(5)) {
                last = event.version
            }
            #expect(last == 50)
        }
        #expect(try TestHTTPClient(port: server.port).send(path: "/state").bodyString == "50")

        #expect(Counted.encodes.load(ordering: .relaxed) - encodesBefore == 50,
                "50 versions: 50 encodes for \(subscriberCount) subscribers, and GET /state reused the newest")
    }

    @Test func reducesWithNoSubscriberAreNotEncodedUntilSomeoneSubscribes() throws {
        let store = try Store(state: Counter(), reducer: BumpReducer.self)
        let server = try Self.bumpServer(store)
        defer { server.shutdown() }

        // With the gate closed, any encoding would block the publisher: none happens.
        Self.gate.close()
        for _ in 0..<1_000 {
            store.dispatch(action: Bump())
        }
        #expect(!Self.gate.waitForEntry(timeout: .milliseconds(500)), "nothing was encoded")
        Self.gate.open()

        let subscriber = try SSEClient(port: server.port, path: "/events")
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 1000)
    }
}
