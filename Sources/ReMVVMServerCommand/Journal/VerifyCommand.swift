import ArgumentParser
import Foundation
import Journal
import ReMVVMServer
import SQLiteJournal

/// `<server> verify DIR`: checks a data directory's journal, every store of it, and reports what
/// is damaged (naming the store, unless it is `default`);
/// exits 0 when it is sound, 1 when something is damaged, 2 when it cannot be read at all.
struct VerifyCommand: DomainCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Checks a data directory's journal: SQLite's integrity check, every checksum, version continuity, and that replay from each snapshot gives the next one's state.",
        discussion: "Read-only; safe while a server runs. Exits 0 when the journal is sound, 1 when something is damaged (the report names it), 2 when it cannot be read."
    )

    @Argument(help: ArgumentHelp("The data directory.", valueName: "dir"))
    var directory: String

    func run<State>(domain: Domain<State>) async throws {
        let outcome: (lines: [String], sound: Bool)
        do {
            outcome = try Self.check(directory, domain: domain)
        } catch {
            throw ExitCode.reporting(error, as: ExitCode(2))
        }
        print(outcome.lines.joined(separator: "\n"))
        if !outcome.sound { throw ExitCode(1) }
    }

    /// The report on `directory`'s journal and whether it is sound.
    static func check<State>(_ directory: String, domain: Domain<State>) throws -> (lines: [String], sound: Bool) {
        let file = try SQLiteJournalFile(directory: directory)
        let storage = try file.storageReport()
        var verifications: [(store: StoreID, verification: JournalVerification)] = []
        for store in try file.stores() {
            let verification = try JournalVerifier(store: try domain.store(), actions: domain.actions).verify(try file.contents(of: store))
            verifications.append((store, verification))
        }
        var lines = ["journal \(file.path) (format \(storage.format)\(storage.format < 2 ? ": no checksums yet, the next start of the server adds them" : ""))"]
        if storage.integrityProblems.isEmpty {
            lines.append("ok: SQLite integrity_check")
        } else {
            lines += storage.integrityProblems.map { "DAMAGED: SQLite integrity_check: \($0)" }
        }
        for (store, verification) in verifications {
            lines += verification.lines(naming: store)
        }
        if verifications.count > 1 {
            let damaged = verifications.filter { !$0.verification.isSound }.map(\.store.rawValue)
            lines.append("\(verifications.count) stores checked\(damaged.isEmpty ? "" : ", damaged: " + damaged.joined(separator: ", "))")
        }
        let sound = storage.integrityProblems.isEmpty && verifications.allSatisfy(\.verification.isSound)
        lines.append(sound ? "sound" : "damaged: restore a backup (docs/journal.md, \"Backup and restore\"), or run \(domain.name) repair \(directory)")
        return (lines, sound)
    }
}
