import ConcurrencyKit
import HTTPTestSupport
import Testing

/// ``Lock``: mutual exclusion, waiting for a condition, and deadlines.
@Suite struct LockTests {
    @Test func incrementsFromManyThreadsAreNotLost() {
        let counter = Lock(0)
        let errors = runOnThreads(8) { _ in
            for _ in 0..<10_000 {
                counter.withLock { $0 += 1 }
            }
        }
        #expect(errors.isEmpty)
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func aWaiterWakesWhenAnotherThreadMakesTheConditionTrue() {
        let inbox = Lock<[Int]>([])
        let taken = Lock<Int?>(nil)
        let errors = runOnThreads(2) { index in
            if index == 0 {
                let item = inbox.withLock(waitingUntil: { !$0.isEmpty }) { items in items.removeFirst() }
                taken.withLock { $0 = item }
            } else {
                inbox.withLock { $0.append(42) }
                inbox.notifyAll()
            }
        }
        #expect(errors.isEmpty)
        #expect(taken.withLock { $0 } == 42)
    }

    @Test func aWaiterSeesAConditionChangedOutsideTheLockOnceNotified() {
        // The pattern of state kept outside (an atomic on a hot path): change it, then notify.
        for _ in 0..<200 {
            let flag = Lock(false)
            let signal = Lock(())
            let woke = Lock(false)
            let errors = runOnThreads(2) { index in
                if index == 0 {
                    let ready = signal.wait(timeout: .seconds(10)) { _ in flag.withLock { $0 } }
                    woke.withLock { $0 = ready }
                } else {
                    flag.withLock { $0 = true }
                    signal.notifyAll()
                }
            }
            #expect(errors.isEmpty)
            #expect(woke.withLock { $0 })
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
