import ArgumentParser
import Foundation
import Journal
import SQLiteJournal

/// `<server> backup DIR DEST`: a consistent copy of a data directory's journal, also while
/// its server runs (SQLite's online backup API), into `DEST/journal.sqlite`.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copies a data directory's journal into another directory, consistently, also while the server runs.",
        discussion: "DEST is created if missing and must not hold a journal yet. To restore: stop the server, and start it with --data-dir DEST (or move DEST/journal.sqlite into an empty data directory); docs/journal.md, \"Backup and restore\"."
    )

    @Argument(help: ArgumentHelp("The data directory to copy.", valueName: "dir"))
    var directory: String

    @Argument(help: ArgumentHelp("The directory to copy it into.", valueName: "dest"))
    var destination: String

    func run() throws {
        do {
            print(try Self.backup(directory, into: destination))
        } catch {
            throw ExitCode.reporting(error)
        }
    }

    /// Copies `directory`'s journal into `destination`; returns a line saying what was copied.
    static func backup(_ directory: String, into destination: String) throws -> String {
        let source = try SQLiteJournalFile(directory: directory)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        let target = destination + "/" + SQLiteJournalStorage.fileName
        let partial = target + ".partial"
        guard !FileManager.default.fileExists(atPath: target) else {
            throw JournalError(code: .unusable, message: "\(target) exists: back up into an empty directory")
        }
        try? FileManager.default.removeItem(atPath: partial)
        do {
            try source.backup(to: partial)
            // The copy is complete before it takes the journal's name.
            try FileManager.default.moveItem(atPath: partial, toPath: target)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let copy = try SQLiteJournalFile(directory: destination)
        let records = try copy.records(after: 0, limit: 1).first?.version
        let snapshots = try copy.storedSnapshots().map(\.version)
        return "copied \(source.path) to \(target): records from version \(records.map(String.init) ?? "none"), snapshots \(snapshots.isEmpty ? "none" : snapshots.map(String.init).joined(separator: ", ")); verify it with \(ServerRootCommand.name.withLock { $0 }) verify \(destination)"
    }
}
