import ConcurrencyKit
import ExampleApp
import Foundation
import ReMVVM
import ReMVVMClient
import Testing

/// Optimistic dispatch: local reducers at once, rebased on every server version, converging to
/// the server's state.
@Suite struct OptimisticConvergenceTests {
    @Test func aDispatchShowsAtOnceAndIsConfirmedByTheServer() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let store = OptimisticStore(client: client, initial: AppState(), reducer: AppReducer.self)
        defer { store.stop() }
        store.dispatch(Increase())
        #expect(store.state.counter == 1, "applied locally before any answer")
        store.start()
        let updates = Collector(store.updates())
        try await updates.wait { _ in store.pendingCount == 0 && store.confirmedVersion == 1 }
        #expect(store.state == AppState(counter: 1))
    }

    /// `stop()` while a batch is being sent — before the server got it, or after it applied it
    /// and before its answer came — then `start()`: the batch goes again with its key, and the
    /// server applies it once (docs/swift-client.md: "what is pending stays pending").
    @Test(arguments: [false, true])
    func aBatchWhoseSendStopInterruptedIsSentAgainWithItsKeyAfterStart(afterTheServerApplied: Bool) async throws {
        let server = try TestServer()
        let hold = HeldRequests()
        let log = RequestLog()
        var hooks = InterceptingTransport.Hooks()
        hooks.beforeSending = { request in
            guard request.method == "POST" else { return }
            log.sent(request)
            if !afterTheServerApplied { try await hold.hold() }
        }
        hooks.afterAnswer = { request, _ in if request.method == "POST" && afterTheServerApplied { try await hold.hold() } }
        let transport = InterceptingTransport(base: URLSessionTransport(), hooks: hooks)
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, transport: transport, retry: quickRetries)
        let store = OptimisticStore(client: client, initial: AppState(), reducer: AppReducer.self)
        defer { store.stop() }
        store.start()
        store.dispatch(Increase())
        try await hold.waitUntilHeld()
        store.stop()
        hold.letEverythingThrough()
        store.start()
        let updates = Collector(store.updates())
        try await updates.wait { _ in store.pendingCount == 0 && store.confirmedVersion == 1 }
        #expect(store.state == AppState(counter: 1), "applied once, shown once")
        #expect(try await client.state(as: AppState.self).state.counter == 1)
        let keys = log.requests("POST", "/actions").compactMap { request in
            request.headers.first { $0.name == "Idempotency-Key" }?.value
        }
        #expect(keys.count >= 2 && Set(keys).count == 1, "one key for every send of the batch: \(keys)")
    }

    /// A batch answered `500` (an action the server cannot journal is refused so on every retry)
    /// is dropped and reported, and the batches after it go: retried, it held them all for good.
    @Test func aBatchAnswered500IsDroppedAndTheNextOnesAreSent() async throws {
        let server = try TestServer()
        let transport = FirstPostAnswered500(base: URLSessionTransport())
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, transport: transport, retry: quickRetries)
        let errors = Lock<[ClientError]>([])
        let store = OptimisticStore(client: client, initial: AppState(), reducer: AppReducer.self) { error in
            errors.withLock { $0.append(error) }
        }
        defer { store.stop() }
        store.dispatch(Increase())
        store.start()
        let updates = Collector(store.updates())
        try await updates.wait { _ in errors.withLock { !$0.isEmpty } && store.pendingCount == 0 }
        #expect(errors.withLock { $0.map(\.code) } == [.status(500)])
        store.dispatch(Decrease())
        try await updates.wait { _ in store.pendingCount == 0 && store.confirmedVersion == 1 }
        #expect(try await client.state(as: AppState.self).state.counter == -1, "the refused increase was never applied, the decrease was")
    }

    /// Two clients × 1,000 random actions, random delays in their transports, the server
    /// restarted half-way: both end with the server's state, byte for byte, and every action was
    /// applied once.
    @Test func twoClientsWithRandomDelaysAndARestartConvergeToTheServersStateByteForByte() async throws {
        let server = try TestServer()
        let stores = (0..<2).map { _ in
            OptimisticStore(
                client: ReMVVMClient(baseURL: server.url, actions: exampleActions, transport: Self.delayedTransport(), retry: quickRetries),
                initial: AppState(),
                reducer: AppReducer.self
            )
        }
        defer { for store in stores { store.stop() } }
        for store in stores { store.start() }
        let expectedCounter = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    var counter = 0
                    for step in 0..<1_000 {
                        let action = Self.randomAction()
                        counter += action is Increase ? 1 : action is Decrease ? -1 : 0
                        store.dispatch(action)
                        if index == 0 && step == 500 { try server.restart() }
                        try await Task.sleep(for: .microseconds(Int.random(in: 0...1_500)))  // a user's pace, not a wait
                    }
                    return counter
                }
            }
            return try await group.reduce(0, +)
        }
        for store in stores {
            try await Collector(store.updates()).wait(within: .seconds(120)) { _ in store.pendingCount == 0 }
        }
        let (tag, _) = try await stores[0].client.stateJSON()
        let serverVersion = try #require(tag.version)
        #expect(serverVersion >= 2_000, "every action reduced (versions: \(serverVersion))")
        let serverBytes = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("state"))).body
        for store in stores {
            try await Collector(store.updates()).wait(within: .seconds(60)) { _ in store.confirmedVersion == serverVersion && store.pendingCount == 0 }
            #expect(Array(try Self.encoder.encode(store.state)) == serverBytes)
        }
        #expect(stores[0].state.counter == expectedCounter, "each action applied exactly once")
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static func randomAction() -> any StoreAction & Encodable {
        switch Int.random(in: 0..<10) {
        case 0: Login(firstName: "User \(Int.random(in: 0..<100))", lastName: "Näme/\(Int.random(in: 0..<9))")
        case 1: Logout()
        case 2...5: Decrease()
        default: Increase()
        }
    }

    /// URLSession with 0–5 ms of delay before each request and after each answer's head.
    private static func delayedTransport() -> InterceptingTransport {
        let delay: @Sendable () async throws -> Void = { try await Task.sleep(for: .microseconds(Int.random(in: 0...5_000))) }
        return InterceptingTransport(
            base: URLSessionTransport(),
            hooks: .init(beforeSending: { _ in try await delay() }, afterAnswer: { _, _ in try await delay() })
        )
    }
}
