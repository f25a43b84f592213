import ConcurrencyKit
import ExampleApp
import Foundation
@testable import ReMVVM
import Testing

/// A dispatch inside ``Store/exclusively(_:)`` runs at once on the processing thread; one from any
/// other thread waits until the exclusive work is over (the server's request dispatch relies on
/// both: `If-Match` and the plan are decided in the same step as the dispatch).
@Suite struct ExclusiveDispatchTests {
    @Test func aDispatchInsideExclusiveWorkRunsAtOnceOnTheProcessingThread() throws {
        let store = try Store.example()
        let (before, outcome, after) = store.exclusively {
            let before = store.version
            let outcome = store.dispatchAndWait([Increase(), Increase()], if: { $0 == 0 })
            return (before, outcome, store.version)
        }
        #expect(before == 0)
        #expect(outcome == .reduced(version: 2))
        #expect(after == 2, "reduced before the exclusive work went on")
    }

    /// A processor shared by the test's threads (it is noncopyable: a store holds it inline).
    private final class SharedProcessor: Sendable {
        let processor = SerialProcessor()
    }

    @Test func onlyTheOwningThreadCountsAsProcessing() {
        let shared = SharedProcessor()
        let idle = shared.processor.isProcessingOnCurrentThread()
        #expect(!idle, "nobody owns an idle processor")
        let seenInside = Lock<Bool?>(nil)
        let seenElsewhere = Lock<Bool?>(nil)
        shared.processor.runAndWait {
            seenInside.withLock { $0 = shared.processor.isProcessingOnCurrentThread() }
            let answered = Signal()
            let other = Thread {
                seenElsewhere.withLock { $0 = shared.processor.isProcessingOnCurrentThread() }
                answered.fire()
            }
            other.start()
            // The owner waits inside its work for the other thread's answer: it reads while the
            // processor is owned.
            _ = answered.wait()
        }
        #expect(seenInside.withLock { $0 } == true)
        #expect(seenElsewhere.withLock { $0 } == false, "another thread is not the owner while one works")
        let afterwards = shared.processor.isProcessingOnCurrentThread()
        #expect(!afterwards, "given up once the work is done")
    }

    @Test func aDispatchFromAnotherThreadWaitsForTheExclusiveWorkToEnd() throws {
        let store = try Store.example()
        let finished = Signal()
        let otherOutcome = Lock<DispatchOutcome?>(nil)
        let versionAtEndOfExclusiveWork = store.exclusively {
            let other = Thread {
                otherOutcome.withLock { $0 = store.dispatchAndWait([Increase()], if: { _ in true }) }
                finished.fire()
            }
            other.start()
            _ = store.dispatchAndWait([Increase()], if: { _ in true })
            _ = store.dispatchAndWait([Increase()], if: { _ in true })
            return store.version
        }
        #expect(finished.wait())
        #expect(versionAtEndOfExclusiveWork == 2, "nothing else came between the exclusive work's dispatches")
        #expect(otherOutcome.withLock { $0 } == .reduced(version: 3))
    }
}
