import ConcurrencyKit
import ExampleApp
import Journal
import HTTPTestSupport
import Synchronization
import Testing

/// Many clients at once: nothing lost, nothing doubled, every subscriber sees every version in order.
@Suite(.tags(.load)) struct LoadTests {
    @Test func sixtyFourClientsPostingTenThousandActionsAreAllReducedAndStreamedInOrder() throws {
        let live = try LiveServer()
        let subscriberCount = 4
        let subscribers = try live.subscribersPastVersionZero(subscriberCount)
        let clients = 64
        let perClient = 10_000 / clients + 1
        let posted = Atomic<Int>(0)

        // Subscribers read while the clients post, as real ones do: one that stops reading for
        // a heartbeat interval while events wait is cut off.
        let errors = runOnThreads(clients + subscriberCount) { index in
            if index >= clients {
                let subscriber = index - clients
                var expected: UInt64 = 1
                while expected <= 10_000, let event = try subscribers[subscriber].value.nextEvent(timeout: .seconds(30)) {
                    guard event.version == expected else {
                        throw TestHTTPError(code: .malformedResponse, message: "subscriber \(subscriber): got \(event.id ?? "nil"), expected \(expected)")
                    }
                    expected += 1
                }
                guard expected == 10_001 else {
                    throw TestHTTPError(code: .malformedResponse, message: "subscriber \(subscriber) stopped at \(expected)")
                }
                return
            }
            let client = live.client()
            let count = index < 10_000 % clients ? perClient : perClient - 1
            for _ in 0..<count {
                let response = try live.post(#"{"type":"increase"}"#, client: client)
                if response.status == 200 { posted.add(1, ordering: .relaxed) }
            }
        }

        #expect(errors.isEmpty, "\(errors)")
        #expect(posted.load(ordering: .relaxed) == 10_000)
        #expect(live.store.state.counter == 10_000)
        #expect(live.store.version == 10_000)
    }

    @Test func hundredsOfSubscribersGetEveryVersionInOrderWhenSeveralThreadsSend() throws {
        let live = try LiveServer()
        // More subscribers than FanOutPool.minimumStreamsToShare: each event is sent by several threads.
        let subscriberCount = 300
        let subscribers = try live.subscribersPastVersionZero(subscriberCount)
        let actions = 200
        let postErrors = runOnThreads(4) { index in
            let client = live.client()
            for _ in 0..<(actions / 4) {
                _ = try live.post(#"{"type":"increase"}"#, client: client)
            }
        }
        #expect(postErrors.isEmpty)
        #expect(live.store.version == UInt64(actions))
        let readErrors = runOnThreads(10) { thread in
            for index in stride(from: thread, to: subscriberCount, by: 10) {
                for expected in 1...actions {
                    let event = try subscribers[index].value.nextEvent(timeout: .seconds(10))
                    guard event?.version == UInt64(expected) else {
                        throw TestHTTPError(code: .malformedResponse, message: "subscriber \(index): got \(event?.id ?? "nil"), expected \(expected)")
                    }
                }
            }
        }
        #expect(readErrors.isEmpty, "\(readErrors)")
    }
}

extension LiveServer {
    /// `count` subscribers to `/events`, each past its first event (version 0), handed over for
    /// reading on other threads.
    fileprivate func subscribersPastVersionZero(
        _ count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [HandedOver<SSEClient>] {
        let subscribers = try (0..<count).map { _ in HandedOver(try subscribe()) }
        for subscriber in subscribers {
            #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 0, sourceLocation: sourceLocation)
        }
        return subscribers
    }
}

/// Resuming event streams under load (issue 11): an `EventSource`-like client drops and resumes
/// with its `Last-Event-ID` 1,000 times while 8 clients post. The writers stay less than 5,000
/// versions ahead of the reader (a signalled wait, no sleep), within the 10,000 versions kept for
/// resuming, so no resume may fall back to a reset.
@Suite(.tags(.load)) struct ResumeLoadTests {
    private struct Progress {
        var readerAt: UInt64 = 0
        var done = false
    }

    @Test func aThousandResumesWhileEightClientsPostReceiveEveryVersionExactlyOnceInOrder() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        let progress = Lock(Progress())
        let received = Mailbox<(versions: [UInt64], resets: Int)>()
        let errors = runOnThreads(9) { index in
            if index < 8 {
                let client = live.client()
                while true {
                    let goOn = progress.withLock(waitingUntil: { $0.done || live.store.version < $0.readerAt + 5_000 }) { !$0.done }
                    guard goOn else { return }
                    #expect(try live.post(#"{"type":"increase"}"#, client: client).status == 200)
                }
            }
            var versions: [UInt64] = []
            var resets = 0
            var generator = SystemRandomNumberGenerator()
            func connect() throws -> SSEClient {
                var headers = [("Accept", "text/event-stream")]
                if let last = versions.last {
                    headers.append(("Last-Event-ID", live.versionTags.tag(last)))
                }
                let stream = try SSEClient(port: live.port, path: "/events", headers: headers)
                if stream.headers["ReMVVM-Replay"] == "reset" { resets += 1 }
                return stream
            }
            // 1,001 connections: the first, then 1,000 resumes, each reading a few events.
            for _ in 0...1_000 {
                let stream = try connect()
                for _ in 0..<Int.random(in: 1...16, using: &generator) {
                    guard let version = try stream.nextEvent(timeout: .seconds(10))?.version else { break }
                    versions.append(version)
                }
                stream.close()
                let at = versions.last ?? 0
                progress.withLock { $0.readerAt = at }
                progress.notifyAll()
            }
            progress.withLock { $0.done = true }
            progress.notifyAll()
            received.post((versions, resets))
        }
        #expect(errors.isEmpty, "\(errors)")
        let outcome = try #require(received.next(timeout: .seconds(5)))
        #expect(outcome.resets == 0, "every resume was served from the versions kept")
        let first = try #require(outcome.versions.first)
        let last = try #require(outcome.versions.last)
        #expect(outcome.versions == Array(first...last), "every version once, in order")
        #expect(outcome.versions.count >= 1_001)
    }
}
