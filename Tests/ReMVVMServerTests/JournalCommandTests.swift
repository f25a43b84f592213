import ConcurrencyKit
import Foundation
import HTTPTestSupport
@testable import SQLiteJournal
import Testing

/// `remvvm-server verify`, `repair` and `backup`, run as the operator runs them
/// (`docs/journal.md`, "Verify and repair", "Backup and restore").
@Suite struct JournalCommandTests {
    /// What a finished command left.
    struct Outcome {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs `remvvm-server arguments` with no terminal on stdin and waits for it.
    static func run(_ arguments: [String]) throws -> Outcome {
        let (process, output, error) = BuiltExecutable.process("remvvm-server", arguments: arguments)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputText = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            output: String(decoding: outputText, as: UTF8.self),
            error: String(decoding: errorText, as: UTF8.self)
        )
    }

    private func post(_ json: String, port: Int) throws -> TestHTTPResponse {
        try TestHTTPClient(port: port).send(
            method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(json.utf8)
        )
    }

    /// A stopped server's data directory holding versions 1...`versions` (increases), snapshots
    /// every 5; `killed`: stopped with `kill -9`, so that no snapshot follows the last versions.
    /// With `damagedRecord`, the time of that record is changed behind the journal's back after
    /// the server stopped (as the sqlite3 shell would): in `actions` after a clean stop, in the
    /// log of recent records after `kill -9`.
    private func dataDirectory(versions: Int, killed: Bool = false, damagedRecord: Int? = nil) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "remvvm-command")
        let server = try ServerProcess(arguments: ["--snapshot-every", "5"], dataDirectory: directory.path)
        for _ in 1...versions { #expect(try post(#"{"type":"increase"}"#, port: server.port).status == 200) }
        #expect(server.stop(with: killed ? SIGKILL : SIGTERM, timeout: 10) != nil)
        if let damagedRecord {
            // In the table that holds it: `actions` after a clean stop (the log of recent records
            // is folded there), `commit_log` after `kill -9`.
            try SQLiteDatabase(path: directory.path + "/journal.sqlite", create: false).execute("""
                UPDATE actions SET time = time + 1 WHERE version = \(damagedRecord);
                UPDATE commit_log SET time = time + 1 WHERE version = \(damagedRecord);
                """)
        }
        return directory
    }

    @Test func verifyReportsASoundJournalAndExitsZero() throws {
        let directory = try dataDirectory(versions: 12)
        let outcome = try Self.run(["verify", directory.path])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.error)")
        #expect(outcome.output.contains("ok: SQLite integrity_check"))
        #expect(outcome.output.contains("records 1...12 (12), snapshots of version 10, 12"), "\(outcome.output)")
        #expect(outcome.output.contains("ok: replaying from the snapshot of version 10 gives the state of the snapshot of version 12"))
        #expect(outcome.output.hasSuffix("sound\n"))
    }

    @Test func verifyNamesTheDamagedRecordAndWhatARepairWouldDrop() throws {
        let directory = try dataDirectory(versions: 12, killed: true, damagedRecord: 11)
        let outcome = try Self.run(["verify", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.output.contains("DAMAGED: the record of version 11 does not match its checksum"), "\(outcome.output)")
        #expect(outcome.output.contains("last good version: 10; a repair would drop versions 11...12, write a snapshot of version 10"), "\(outcome.output)")
        #expect(try Self.run(["verify", directory.path + "/missing"]).status == 2)
    }

    /// A damaged record older than an intact snapshot is history: the snapshot still gives every
    /// later version, so a repair keeps them and removes the history up to the damage.
    @Test func verifyKeepsTheVersionsAnIntactSnapshotStillGives() throws {
        let directory = try dataDirectory(versions: 12, damagedRecord: 3)
        let outcome = try Self.run(["verify", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.output.contains("last good version: 12; a repair would remove the records through version 3"), "\(outcome.output)")
    }

    @Test func theServerRefusesToStartOnADamagedRecordNamingStoreVersionFileAndRepair() throws {
        let directory = try dataDirectory(versions: 12, damagedRecord: 11)
        let error = try #require(throws: ServerProcessError.self) { _ = try ServerProcess(dataDirectory: directory.path) }
        #expect(error.exitStatus == 1)
        #expect(error.message.contains("the record of version 11 of store default") && error.message.contains(directory.path + "/journal.sqlite"), "\(error.message)")
        #expect(error.message.contains("remvvm-server repair \(directory.path)"))
    }

    @Test func repairRefusesWhileAServerHoldsTheDirectory() throws {
        let directory = try dataDirectory(versions: 3)
        let server = try ServerProcess(dataDirectory: directory.path)
        let outcome = try Self.run(["repair", directory.path, "--yes"])
        #expect(outcome.status == 1)
        #expect(outcome.error.contains("in use by another server process") && outcome.error.contains("stopped first"), "\(outcome.error)")
        #expect(try post(#"{"type":"increase"}"#, port: server.port).status == 200, "the server goes on")
    }

    @Test func repairOffATerminalWithoutYesChangesNothing() throws {
        let directory = try dataDirectory(versions: 12, damagedRecord: 11)
        let outcome = try Self.run(["repair", directory.path])
        #expect(outcome.status == 1)
        #expect(outcome.error.contains("nothing changed: not on a terminal, pass --yes"), "\(outcome.error)")
        #expect(try Self.run(["verify", directory.path]).status == 1, "still damaged")
    }

    @Test func repairKeepsTheLastGoodVersionAndTheServerStartsThere() throws {
        let directory = try dataDirectory(versions: 12, killed: true, damagedRecord: 11)
        let outcome = try Self.run(["repair", directory.path, "--yes"])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.error)")
        #expect(outcome.output.contains("repaired: the journal ends at version 10"), "\(outcome.output)")
        let verified = try Self.run(["verify", directory.path])
        #expect(verified.status == 0, "\(verified.output)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("journal.sqlite.before-repair-") }
        #expect(kept.count == 1, "the file as it was: \(kept)")
        let server = try ServerProcess(dataDirectory: directory.path)
        let state = try TestHTTPClient(port: server.port).send(path: "/state")
        #expect(state.headers["ETag"] == "\"10\"" && state.bodyString.contains(#""counter":10"#), "\(state.bodyString)")
        #expect(try post(#"{"type":"increase"}"#, port: server.port).bodyString == #"{"version":11}"#)
    }

    /// A backup taken while a client writes is a state the server had: restored, it serves that
    /// version with the state of it, and its action log is the original's up to it.
    @Test func aBackupTakenWhileTheServerWritesRestoresToAVersionItHad() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-command")
        let server = try ServerProcess(arguments: ["--snapshot-every", "50"], dataDirectory: directory.path)
        let writing = Lock((stop: false, acknowledged: 0))
        let writer = Thread { [port = server.port] in
            while !writing.withLock({ $0.stop }) {
                guard (try? TestHTTPClient(port: port).send(
                    method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(#"{"type":"increase"}"#.utf8)
                ))?.status == 200 else { break }
                writing.withLock { $0.acknowledged += 1 }
                writing.notifyAll()
            }
        }
        writer.start()
        #expect(writing.wait(timeout: .seconds(30)) { $0.acknowledged >= 100 })
        let copy = try TemporaryDirectory(prefix: "remvvm-backup")
        let outcome = try Self.run(["backup", directory.path, copy.path + "/data"])
        #expect(writing.wait(timeout: .seconds(30)) { $0.acknowledged >= 200 }, "the server wrote on during the backup")
        writing.withLock { $0.stop = true }
        #expect(outcome.status == 0, "\(outcome.error)")
        let originalLog = try TestHTTPClient(port: server.port).send(path: "/actions?limit=1000").bodyString

        let restored = try ServerProcess(dataDirectory: copy.path + "/data")
        let state = try TestHTTPClient(port: restored.port).send(path: "/state")
        let version = try #require(Int(state.headers["ETag"]?.trimmingCharacters(in: ["\""]) ?? ""))
        #expect(version >= 100, "at least what was acknowledged before the backup started")
        #expect(state.bodyString == #"{"counter":\#(version),"user":null}"#, "\(state.bodyString)")
        let restoredLog = try TestHTTPClient(port: restored.port).send(path: "/actions?limit=1000").bodyString
        let actions = #""actions":["#
        let originalActions = try #require(originalLog.range(of: actions).map { originalLog[$0.upperBound...] })
        let restoredActions = try #require(restoredLog.range(of: actions).map { restoredLog[$0.upperBound...] })
        #expect(originalActions.hasPrefix(restoredActions.dropLast(2)), "the restored log is the original's up to its version")
        #expect(try Self.run(["verify", copy.path + "/data"]).status == 0)
    }
}
