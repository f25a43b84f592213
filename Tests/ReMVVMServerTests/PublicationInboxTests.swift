import ExampleApp
@testable import ReMVVM
@testable import ReMVVMServer
import Testing

/// ``PublicationInbox``, the inbox both hubs share: set aside while nobody listens, one wake-up
/// per batch, bounded (drop on lag), nothing accepted after the stop.
@Suite struct PublicationInboxTests {
    private typealias Inbox = PublicationInbox

    @Test func publicationsWhileNobodyListensAreSetAsideWithoutWakingTheLane() {
        var inbox = Inbox()
        let firstNeedsLane = inbox.publish(publication(1), limit: 10)
        let secondNeedsLane = inbox.publish(publication(2), limit: 10)
        #expect(!firstNeedsLane && !secondNeedsLane)
        var taken: [Inbox.Entry] = []
        let batch = inbox.take(into: &taken)
        #expect(version(of: batch.setAside) == 2)
        #expect(taken.isEmpty)
        #expect(inbox.versionsSetAside == 2)
    }

    @Test func aListenerQueuesPublicationsInOrderAndTheLaneIsWokenOncePerBatch() {
        var inbox = Inbox()
        _ = inbox.publish(publication(1), limit: 10)
        let accepted = inbox.post("subscriber", listens: true)
        let wakeForSubscriber = inbox.needsWake()
        let queued = inbox.publish(publication(2), limit: 10)
        let wakeAgain = inbox.needsWake()
        #expect(accepted && wakeForSubscriber && queued)
        #expect(!wakeAgain, "a drain is queued already")
        var taken: [Inbox.Entry] = []
        let batch = inbox.take(into: &taken)
        #expect(version(of: batch.setAside) == 1)
        #expect(!batch.dropListeners && !batch.stopping)
        #expect(describe(taken) == ["subscriber", "2"])
        _ = inbox.publish(publication(3), limit: 10)
        let wakeAfterTake = inbox.needsWake()
        #expect(wakeAfterTake, "the first entry after a take wakes the lane again")
    }

    @Test func aLaneTooFarBehindDropsThePublicationsWaitingAndItsListeners() {
        var inbox = Inbox()
        _ = inbox.post("subscriber", listens: true)
        for version in 1...3 {
            _ = inbox.publish(publication(UInt64(version)), limit: 3)
        }
        let overLimitNeedsLane = inbox.publish(publication(4), limit: 3)
        #expect(overLimitNeedsLane)
        var taken: [Inbox.Entry] = []
        let batch = inbox.take(into: &taken)
        #expect(batch.dropListeners)
        #expect(version(of: batch.setAside) == 4)
        #expect(describe(taken) == ["subscriber"])
        #expect(inbox.versionsSetAside == 4)
    }

    @Test func withNoListenerLeftPublicationsGoAsideAgainAndAfterTheStopNothingIsAccepted() {
        var inbox = Inbox()
        _ = inbox.post("subscriber", listens: true)
        var taken: [Inbox.Entry] = []
        _ = inbox.take(into: &taken)
        inbox.stopListeningIfIdle()
        #expect(!inbox.listening)
        let asideNeedsLane = inbox.publish(publication(1), limit: 10)
        #expect(!asideNeedsLane)
        let firstStopWakes = inbox.stop()
        let secondStopWakes = inbox.stop()
        #expect(firstStopWakes && !secondStopWakes)
        let lateAccepted = inbox.post("late", listens: true)
        let lateNeedsLane = inbox.publish(publication(2), limit: 10)
        #expect(!lateAccepted && !lateNeedsLane)
        taken.removeAll()
        let last = inbox.take(into: &taken)
        #expect(last.stopping)
        #expect(taken.isEmpty)
    }

    private func publication(_ version: UInt64) -> StatePublication<AppState> {
        StatePublication(version: version, action: Increase(), state: AppState(counter: Int(version), user: nil))
    }

    private func version(of setAside: AnyObject?) -> UInt64? {
        setAside.map { PublicationInbox.publication($0, as: AppState.self).version }
    }

    private func describe(_ entries: [Inbox.Entry]) -> [String] {
        entries.map { entry in
            switch entry {
            case .publication(let publication): "\(PublicationInbox.publication(publication, as: AppState.self).version)"
            case .item(let item): PublicationInbox.item(item, as: String.self)
            }
        }
    }
}
