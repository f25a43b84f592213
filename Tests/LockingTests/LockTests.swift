import Foundation
import Locking
import Testing

/// ``Lock``: mutual exclusion, waiting for a condition, and deadlines.
@Suite struct LockTests {
    /// Starts `count` threads running `body(index)`; returns a lock that counts finished threads.
    private func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Lock<Int> {
        let finished = Lock(0)
        for index in 0..<count {
            Thread {
                body(index)
                finished.withLock { $0 += 1 }
                finished.notifyAll()
            }.start()
        }
        return finished
    }

    @Test func incrementsFromManyThreadsAreNotLost() {
        let counter = Lock(0)
        let finished = startThreads(8) { _ in
            for _ in 0..<10_000 {
                counter.withLock { $0 += 1 }
            }
        }
        #expect(finished.wait(timeout: .seconds(60)) { $0 == 8 })
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func aWaiterWakesWhenAnotherThreadMakesTheConditionTrue() {
        let inbox = Lock<[Int]>([])
        let finished = startThreads(1) { _ in
            inbox.withLock { $0.append(42) }
            inbox.notifyAll()
        }
        let taken = inbox.withLock(waitingUntil: { !$0.isEmpty }) { items in items.removeFirst() }
        #expect(taken == 42)
        #expect(finished.wait(timeout: .seconds(10)) { $0 == 1 })
    }

    @Test func aConditionChangedThroughAnotherLockIsNotMissed() {
        // The pattern of state kept outside (an atomic on a hot path): change it, then notify.
        let flag = Lock(false)
        let signal = Lock(())
        for _ in 0..<200 {
            flag.withLock { $0 = false }
            let finished = startThreads(1) { _ in
                flag.withLock { $0 = true }
                signal.notifyAll()
            }
            #expect(signal.wait(timeout: .seconds(10)) { _ in flag.withLock { $0 } })
            #expect(finished.wait(timeout: .seconds(10)) { $0 == 1 })
        }
    }

    @Test func aTimedWaitReportsWhetherTheConditionHeld() {
        let lock = Lock(0)
        let start = ContinuousClock.now
        #expect(lock.wait(timeout: .milliseconds(50)) { $0 > 0 } == false)
        #expect(ContinuousClock.now - start >= .milliseconds(50), "it waited for the deadline")
        lock.withLock { $0 = 1 }
        #expect(lock.wait(timeout: .zero) { $0 > 0 })
        let ready = lock.withLock(waitingUntil: { $0 > 5 }, timeout: .milliseconds(1)) { value, ready in
            value += 10
            return ready
        }
        #expect(ready == false)
        #expect(lock.withLock { $0 } == 11, "the body runs with the lock even after a timeout")
    }

    @Test func theBodyMayThrowATypedError() {
        struct Refused: Error {}
        let lock = Lock(0)
        #expect(throws: Refused.self) {
            try lock.withLock { (_: inout Int) throws(Refused) in throw Refused() }
        }
        #expect(lock.withLock { $0 } == 0)
    }
}
