import ExampleApp
import HTTPTestSupport
import Journal
@testable import ReMVVMServer
import Testing

/// A view-model hub nobody follows takes no publication (``PublicationDemand``): a feature that
/// is off costs its store nothing per version, and the first stream after versions nobody
/// followed still starts from the newest state, then gets every change.
@Suite struct ViewModelDemandTests {
    @Test(arguments: [false, true])
    func aHubNobodyFollowsTakesNoPublicationAndItsFirstStreamStartsAtTheNewestState(durable: Bool) throws {
        let live = try LiveServer(journal: durable ? MemoryJournalStorage() : nil)
        let hub = live.server.service.root.viewModelHub
        for _ in 1...5 {
            _ = try live.post(#"{"type":"increase"}"#)
        }
        #expect(hub.inbox.withLock { $0.versionsSetAside } == 0, "nobody follows: no version reached the hub")
        #expect(!hub.demand.isWanted)

        let stream = try live.viewModelStream("/viewmodels/counter/events")
        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.data == #"{"version":5,"name":"counter","viewModel":{"counter":"5"}}"#)
        _ = try live.post(#"{"type":"increase"}"#)
        let next = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(next.data == #"{"version":6,"name":"counter","viewModel":{"counter":"6"}}"#)
    }

    @Test func aStreamThatComesAfterTheLastOneLeftStartsAtTheNewestStateAgain() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        let hub = live.server.service.root.viewModelHub
        do {
            let stream = try live.viewModelStream("/viewmodels/counter/events")
            _ = try #require(try stream.nextEvent(timeout: .seconds(5)))
            stream.close()
        }
        #expect(hub.waitForSubscribers(timeout: .seconds(5)) { $0 == 0 })
        // The lane stops listening once it has seen the stream leave.
        #expect(waitUntil(timeout: .seconds(5)) { !hub.demand.isWanted })
        for _ in 1...3 {
            _ = try live.post(#"{"type":"increase"}"#)
        }
        let stream = try live.viewModelStream("/viewmodels/counter/events")
        let first = try #require(try stream.nextEvent(timeout: .seconds(5)))
        #expect(first.data == #"{"version":3,"name":"counter","viewModel":{"counter":"3"}}"#)
    }
}
