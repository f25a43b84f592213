import ArgumentParser
import Foundation
import Journal
import ReMVVMServer
import SQLiteJournal

/// `<server> repair DIR [--yes]`: keeps every version each store of a data directory's journal
/// can still rebuild, drops what is damaged and what follows it, and writes a snapshot of each
/// repaired store's last good version. Asks before dropping anything; refuses while a server holds the directory.
struct RepairCommand: DomainCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Keeps a damaged journal's versions up to the last good one, drops the rest, and writes a snapshot of it.",
        discussion: "The server must be stopped. The file as it was is copied to journal.sqlite.before-repair-<time> first. Exits 0 when repaired or sound, 1 when refused or failed."
    )

    @Argument(help: ArgumentHelp("The data directory.", valueName: "dir"))
    var directory: String

    @Flag(help: "Drop what the repair drops without asking (for scripts).")
    var yes = false

    func run<State>(domain: Domain<State>) async throws {
        do {
            try repair(domain)
        } catch let error as ExitCode {
            throw error
        } catch {
            throw ExitCode.reporting(error)
        }
    }

    private func repair<State>(_ domain: Domain<State>) throws {
        // The check first, without the lock: a missing journal is not created by opening it.
        _ = try SQLiteJournalFile(directory: directory)
        let storage = try Self.open(directory)
        defer { storage.close() }
        var plans: [(store: StoreID, plan: JournalRepairPlan)] = []
        for store in try Self.stores(of: storage) {
            guard let contents = try storage.storage(for: store) else { continue }
            let verification = try JournalVerifier(store: try domain.store(), actions: domain.actions).verify(contents)
            print(verification.lines(naming: store).joined(separator: "\n"))
            if let plan = verification.repairPlan { plans.append((store, plan)) }
        }
        guard !plans.isEmpty else {
            print("nothing to repair")
            return
        }
        guard yes || confirmed() else {
            FileHandle.standardError.write(Data("nothing changed\(isatty(STDIN_FILENO) == 0 ? ": not on a terminal, pass --yes to repair without asking" : "")\n".utf8))
            throw ExitCode.failure
        }
        let copy = storage.path + ".before-repair-\(Int(Date().timeIntervalSince1970))"
        try storage.backup(to: copy)
        for (store, plan) in plans {
            try storage.repair(plan, store: store)
            let whose = store == .default ? "the journal ends" : "the journal of store \(store) ends"
            print("repaired: \(whose) at version \(plan.lastGoodVersion), with a snapshot of it; the file as it was is \(copy)")
        }
    }

    /// Every store of the file, ordered by id.
    private static func stores(of storage: SQLiteJournalStorage) throws(JournalError) -> [StoreID] {
        var stores: [StoreID] = []
        while true {
            let page = try storage.list(prefix: "", after: stores.last, limit: 1_000)
            stores += page.map(\.id)
            if page.count < 1_000 { return stores }
        }
    }

    /// Opens the journal with its lock, which a running server holds: refused then.
    private static func open(_ directory: String) throws(JournalError) -> SQLiteJournalStorage {
        do {
            return try SQLiteJournalStorage(directory: directory, sync: .full)
        } catch {
            guard error.code == .locked else { throw error }
            throw JournalError(code: .locked, message: "\(error.message); repair changes the journal, so the server must be stopped first")
        }
    }

    /// Asks on the terminal; false when there is none or the answer is not yes.
    private func confirmed() -> Bool {
        guard isatty(STDIN_FILENO) != 0 else { return false }
        print("repair? [y/N] ", terminator: "")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
