import ExampleApp
import HTTPTestSupport
import Synchronization
import Testing

/// Many clients at once: nothing lost, nothing doubled, every subscriber sees every version in order.
@Suite(.tags(.load)) struct LoadTests {
    @Test func sixtyFourClientsPostingTenThousandActionsAreAllReducedAndStreamedInOrder() throws {
        let live = try LiveServer()
        let subscriberCount = 4
        let subscribers = try (0..<subscriberCount).map { _ in HandedOver(try live.subscribe()) }
        for subscriber in subscribers {
            #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 0)
        }
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
        let subscribers = try (0..<subscriberCount).map { _ in HandedOver(try live.subscribe()) }
        for subscriber in subscribers {
            #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 0)
        }
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
