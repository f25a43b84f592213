import ConcurrencyKit
import HTTPTestSupport
import Testing

/// ``ChangeSignal``: waiting for state kept elsewhere, woken by whoever changes it.
@Suite struct ChangeSignalTests {
    @Test func aWaiterSeesEachChangeUntilItsConditionHolds() {
        let signal = ChangeSignal()
        let count = Lock(0)
        let sawThree = Lock(false)
        let errors = runOnThreads(2) { index in
            if index == 0 {
                let held = signal.wait(timeout: .seconds(10)) { count.withLock { $0 } == 3 }
                sawThree.withLock { $0 = held }
            } else {
                for _ in 0..<3 {
                    count.withLock { $0 += 1 }
                    signal.changed()
                }
            }
        }
        #expect(errors.isEmpty)
        #expect(sawThree.withLock { $0 })
    }

    @Test func aConditionThatNeverHoldsTimesOutAndChangesWithoutWaitersAreHarmless() {
        let signal = ChangeSignal()
        for _ in 0..<1_000 {
            signal.changed()
        }
        #expect(signal.wait(timeout: .milliseconds(20)) { false } == false)
        #expect(signal.wait(timeout: .zero) { true })
    }
}
