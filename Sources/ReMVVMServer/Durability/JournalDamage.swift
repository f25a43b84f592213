import Journal
import Logging

extension Array where Element == JournalRecord {
    /// The records, or a ``Journal/JournalErrorCode/corrupt`` error naming the first that does
    /// not match its checksum: a replay (a restart, a resuming stream) never applies one.
    func intact(in storage: any JournalStorage) throws(JournalError) -> [JournalRecord] {
        try requireIntact(in: storage)
        return self
    }

    /// Throws ``Journal/JournalErrorCode/corrupt`` naming the first record that does not match
    /// its checksum, if there is one.
    func requireIntact(in storage: any JournalStorage) throws(JournalError) {
        guard let damaged = first(where: { !$0.isIntact }) else { return }
        throw JournalError(
            code: .corrupt,
            message: "the journal \(storage.location): the record of version \(damaged.version) of store \(storage.store) does not match its checksum (bytes of it changed on disk); run remvvm-server verify for a report, repair to keep what can be rebuilt, or restore a backup"
        )
    }
}

extension JournalRecovery {
    /// Says which snapshots a start passed over because they do not match their checksums, and
    /// where it starts from instead (`docs/journal.md`, "Damage").
    func logDamage(of storage: any JournalStorage, logger: Logger) {
        guard !damagedSnapshots.isEmpty else { return }
        let base = snapshot.map { "the snapshot of version \($0.version)" } ?? "the initial state (version 0)"
        logger.error(
            "the journal \(storage.location): the snapshot(s) of version \(damagedSnapshots.map(String.init).joined(separator: ", ")) do not match their checksums (bytes changed on disk) and are skipped; starting from \(base) and the records after it. remvvm-server verify reports the damage; the next snapshot replaces it"
        )
    }
}
