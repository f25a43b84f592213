import Configuration
import HTTPTestSupport
import Journal
import Logging
@testable import ReMVVMServerCommand
@testable import SQLiteJournal
import Testing

/// The SQLite journal's fold settings (`journalFoldThreshold`, `journalFoldPiece`): read, checked,
/// handed to the journal the server opens; and the start's notice of a fold a stop cut short.
@Suite struct JournalSettingsTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    @Test func theFoldSettingsReachTheJournalTheServerOpens() async throws {
        let defaults = ServerSettings()
        #expect(defaults.journalFoldThreshold == SQLiteJournalStorage.defaultFoldThreshold)
        #expect(defaults.journalFoldPiece == SQLiteJournalStorage.defaultFoldPiece)
        var settings = try await ServerSettings.load(
            flags: [AbsoluteConfigKey(["journalFoldPiece"]): ConfigValue(.int(128), isSecret: false)],
            environment: ["REMVVM_JOURNAL_FOLD_THRESHOLD": "1024"], configPath: nil
        )
        #expect(settings.journalFoldThreshold == 1_024 && settings.journalFoldPiece == 128)
        let directory = try TemporaryDirectory(prefix: "remvvm-fold-settings")
        settings.dataDir = directory.path + "/data"
        let log = CapturedLog()
        let storage = try ServeCommand.openJournal(settings, logger: log.logger(level: .trace))
        defer { storage.close() }
        #expect(storage.foldThreshold == 1_024 && storage.foldPiece == 128)
        #expect(!storage.finishedAnInterruptedFold && log.messages.snapshot.isEmpty, "\(log.messages.snapshot)")
    }

    @Test(arguments: [
        ("REMVVM_JOURNAL_FOLD_THRESHOLD", "0"), ("REMVVM_JOURNAL_FOLD_THRESHOLD", "1048577"),
        ("REMVVM_JOURNAL_FOLD_PIECE", "0"), ("REMVVM_JOURNAL_FOLD_PIECE", "-5"),
    ])
    func aFoldSettingOutOfRangeIsRefusedNamingIt(variable: String, value: String) async throws {
        await #expect("\(variable)=\(value)") {
            _ = try await ServerSettings.load(flags: [:], environment: [variable: value], configPath: nil)
        } throws: { error in
            let text = "\(error)"
            return text.contains(variable) && text.contains("is out of range; use 1...1048576")
        }
    }

    @Test func aStartThatFinishesAFoldAStopCutShortSaysSo() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-fold-settings")
        do {
            // Three stores with three records each in the log, pieces of three records from one
            // store on: the next commit moves the first piece, and the stop leaves the rest.
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off, foldThreshold: 8, foldPiece: 3, foldPiecesFromStores: 1)
            var stores: [any JournalStorage] = [storage]
            for name in ["room-1", "room-2"] {
                let id = try StoreID(name)
                _ = try storage.create(id, limit: 100, at: 1)
                stores.append(try #require(try storage.storage(for: id)))
            }
            for store in stores { try store.append((1...3).map(record)) }
            try stores[0].append([record(4)])
            #expect(storage.log.withLock { $0.folding != nil }, "a fold under way")
            storage.foldsLogOnClose.withLock { $0 = false }
            storage.close()
        }
        var settings = ServerSettings()
        settings.dataDir = directory.path
        let log = CapturedLog()
        let storage = try ServeCommand.openJournal(settings, logger: log.logger())
        defer { storage.close() }
        #expect(storage.finishedAnInterruptedFold)
        #expect(log.messages.snapshot == ["notice journal: finished moving the log of recent records into actions, which the last stop had cut short"])
        #expect(try storage.records(after: 0, limit: 10) == (1...4).map(record))
    }
}
