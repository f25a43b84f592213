import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// `remvvm-server verify` and `repair` over a file of several stores: each store is checked and
/// repaired on its own, and the messages name every store but `default` (`docs/journal.md`,
/// "Verify and repair").
@Suite struct JournalCommandStoresTests {
    /// A stopped server's data directory (versions 1...12 of `default`, snapshots every 5) with a
    /// second store `room-1` holding a copy of the same records and snapshots, whose record of
    /// version 11 was then changed behind the journal's back.
    private func twoStores() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "remvvm-command-stores")
        let server = try ServerProcess(arguments: ["--snapshot-every", "5"], dataDirectory: directory.path)
        for _ in 1...12 {
            let answer = try TestHTTPClient(port: server.port).send(
                method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(#"{"type":"increase"}"#.utf8)
            )
            #expect(answer.status == 200)
        }
        // The snapshot of version 10 is written beside the commits, after its answer: wait for it
        // in the file before the kill, or a slow run (ThreadSanitizer) kills the server first.
        #expect(try newestSnapshot(in: directory.path, waitingFor: 10, timeout: .seconds(30)) == 10)
        #expect(server.stop(with: SIGKILL, timeout: 10) != nil)
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        let room = try StoreID("room-1")
        _ = try database.create(room, limit: 10, at: 1)
        let copy = try #require(try database.storage(for: room))
        try copy.append(try database.records(after: 0, limit: 100))
        for snapshot in try database.storedSnapshots() {
            try copy.saveSnapshot(snapshot)
        }
        database.close()
        try SQLiteDatabase(path: directory.path + "/journal.sqlite", create: false).execute(
            "UPDATE actions SET time = time + 1 WHERE version = 11 AND store = (SELECT key FROM stores WHERE id = 'room-1')"
        )
        return directory
    }

    /// The newest snapshot version in the journal file under `directory` (read-only, beside the
    /// running server), once it reaches `version` or `timeout` passes.
    private func newestSnapshot(in directory: String, waitingFor version: Int64, timeout: Duration) throws -> Int64 {
        let deadline = ContinuousClock.now + timeout
        let file = try SQLiteDatabase(path: directory + "/journal.sqlite", create: false, readOnly: true)
        let newest = try file.prepare("SELECT COALESCE(MAX(version), 0) FROM snapshots")
        while true {
            newest.reset()
            _ = try newest.step()
            let found = newest.int64(0)
            if found >= version || ContinuousClock.now >= deadline { return found }
            Thread.sleep(forTimeInterval: 0.01)  // polling the file: the server gives no signal
        }
    }

    @Test func verifyChecksEveryStoreAndNamesTheDamagedOne() throws {
        let directory = try twoStores()
        let outcome = try JournalCommandTests.run(["verify", directory.path])
        #expect(outcome.status == 1, "\(outcome.output)\(outcome.error)")
        #expect(outcome.output.contains("records 1...12 (12), snapshots of version 5, 10"), "the default store as before: \(outcome.output)")
        #expect(!outcome.output.contains("DAMAGED: the record"), "the default store is sound: \(outcome.output)")
        #expect(outcome.output.contains("DAMAGED: store room-1: the record of version 11 does not match its checksum"), "\(outcome.output)")
        #expect(outcome.output.contains("store room-1: last good version: 10"), "\(outcome.output)")
        #expect(outcome.output.contains("2 stores checked, damaged: room-1"), "\(outcome.output)")
    }

    @Test func repairKeepsEachStoresLastGoodVersionAndLeavesTheOthers() throws {
        let directory = try twoStores()
        let outcome = try JournalCommandTests.run(["repair", directory.path, "--yes"])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.error)")
        #expect(outcome.output.contains("repaired: the journal of store room-1 ends at version 10"), "\(outcome.output)")
        #expect(!outcome.output.contains("repaired: the journal ends"), "the default store needed nothing")
        let verified = try JournalCommandTests.run(["verify", directory.path])
        #expect(verified.status == 0, "\(verified.output)")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        #expect(try database.recover().lastVersion == 12)
        #expect(try database.describe(StoreID("room-1"))?.version == 10)
        #expect(try database.storage(for: StoreID("room-1"))?.recover().lastVersion == 10)
    }
}
