import ConcurrencyKit
import ExampleApp
import Journal
import Logging
import ReMVVM
@testable import ReMVVMServer
import Testing

/// `SnapshotWriter`: a snapshot that falls due while the previous one is still being written is
/// taken then and written right after it, not skipped.
@Suite struct SnapshotWriterTests {
    @Test func aSnapshotDueWhileAnotherIsWrittenIsWrittenRightAfterIt() throws {
        let storage = MemoryJournalStorage()
        let released = Lock(false)
        let writer = SnapshotWriter<AppState>(
            storage: storage, every: 5, newest: 0, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            afterWrite: { version in
                // The snapshot of version 5 stays "being written" until the test releases it.
                if version == 5 { _ = released.wait(timeout: .seconds(10)) { $0 } }
            }
        )
        @Sendable func state(_ version: UInt64) -> StoreSnapshot<AppState> {
            StoreSnapshot(version: version, state: AppState(counter: Int(version), user: nil))
        }
        writer.writeIfDue(at: 5) { state(5) }
        #expect(storage.wait(timeout: .seconds(10)) { (try? $0.snapshot(atOrBefore: 5))??.version == 5 })
        for version: UInt64 in 6...12 {
            writer.writeIfDue(at: version) { state(version) }
        }
        released.withLock { $0 = true }
        released.notifyAll()
        #expect(storage.wait(timeout: .seconds(10)) { (try? $0.snapshot(atOrBefore: 12))??.version == 10 }, "the snapshot due at 10 was skipped")
        writer.finish(with: state(12))
        #expect(try storage.snapshot(atOrBefore: 12)?.version == 12)
        #expect(try storage.snapshot(atOrBefore: 11)?.version == 10)
    }
}

/// `SnapshotWriter.writeIfDue`: a snapshot falls due `every` versions after the version the last
/// one was taken at — not at multiples of `every` — whatever versions are reported in between.
@Suite struct SnapshotDueTests {
    @Test func aSnapshotFallsDueEveryIntervalAfterTheLastOneTaken() throws {
        let storage = MemoryJournalStorage()
        let writer = SnapshotWriter<AppState>(
            storage: storage, every: 10, newest: 7, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let taken = Lock<[UInt64]>([])
        for version: UInt64 in [9, 16, 17, 18, 26, 28, 37, 38, 100] {
            writer.writeIfDue(at: version) {
                taken.withLock { $0.append(version) }
                return StoreSnapshot(version: version, state: AppState(counter: Int(version), user: nil))
            }
            writer.waitForWriting()
        }
        #expect(taken.withLock { $0 } == [17, 28, 38, 100], "due at newest + 10, then 10 after each one taken")
        #expect(try storage.snapshot(atOrBefore: 100)?.version == 100)
    }
}
