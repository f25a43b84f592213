import ConcurrencyKit
import Testing

/// ``Worker``: one named thread, started once, stopped with a deadline.
@Suite struct WorkerTests {
    @Test func aWorkerRunsUnderItsNameUntilAskedToStop() throws {
        let worker = Worker(named: "worker-test")
        let seen = Lock((name: "", rounds: 0))
        try worker.start { worker in
            seen.withLock { $0.name = currentThreadName() }
            while !worker.pause(for: .milliseconds(1)) {
                seen.withLock { $0.rounds += 1 }
                seen.notifyAll()
            }
        }
        #expect(seen.wait(timeout: .seconds(10)) { $0.rounds >= 3 })
        #expect(worker.isRunning)
        try worker.stop(timeout: .seconds(10))
        #expect(!worker.isRunning)
        #expect(seen.withLock { $0.name } == "worker-test")
    }

    @Test func aStopCutsAPauseShort() throws {
        let worker = Worker(named: "worker-test")
        let clock = ContinuousClock()
        try worker.start { worker in _ = worker.pause(for: .seconds(600)) }
        let started = clock.now
        try worker.stop(timeout: .seconds(30))
        #expect(clock.now - started < .seconds(30))
    }

    @Test func aStopThatTimesOutIsReportedAndTheWorkerCanBeJoinedLater() throws {
        let worker = Worker(named: "stubborn")
        let release = Lock(false)
        try worker.start { _ in _ = release.wait(timeout: .seconds(60)) { $0 } }
        #expect(throws: WorkerError(.stopTimedOut, name: "stubborn", timeout: .milliseconds(50))) {
            try worker.stop(timeout: .milliseconds(50))
        }
        #expect(worker.isRunning)
        release.withLock { $0 = true }
        release.notifyAll()
        try worker.join(timeout: .seconds(30))
        #expect(!worker.isRunning)
    }

    @Test func theStopHookWakesABodyBlockedElsewhere() throws {
        let bell = Lock(false)
        let worker = Worker(named: "worker-test") {
            bell.withLock { $0 = true }
            bell.notifyAll()
        }
        try worker.start { _ in _ = bell.wait(timeout: .seconds(60)) { $0 } }
        try worker.stop(timeout: .seconds(30))
        #expect(bell.withLock { $0 })
    }

    @Test func aWorkerStoppedBeforeItStartsNeverRunsAndAStopFromItsOwnBodyDoesNotHang() throws {
        let never = Worker(named: "never")
        try never.stop(timeout: .seconds(1))
        let ran = Lock(false)
        try never.start { _ in ran.withLock { $0 = true } }
        #expect(!never.isRunning)
        #expect(!ran.withLock { $0 })

        let selfStopping = Worker(named: "self-stop")
        let outcome = Lock<Bool?>(nil)
        try selfStopping.start { worker in
            let stopped = (try? worker.stop(timeout: .seconds(60))) != nil
            outcome.withLock { $0 = stopped && worker.isStopRequested }
            outcome.notifyAll()
        }
        #expect(outcome.wait(timeout: .seconds(30)) { $0 != nil })
        #expect(outcome.withLock { $0 } == true)
        try selfStopping.join(timeout: .seconds(30))
    }
}
