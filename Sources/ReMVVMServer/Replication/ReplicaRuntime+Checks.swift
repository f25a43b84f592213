import ConcurrencyKit
import Journal
import Logging
import ReMVVM

/// What a replica checks before it applies anything: its local storage holds snapshots only, and
/// the shared log is the one its snapshots came from and still holds every record after them —
/// at its start, and again each time the follower reaches the log.
extension ReplicaRuntime {
    /// The local storage's recovery, once it is known to hold no records (a single-node journal:
    /// its versions are not the log's) and is claimed as a replica's.
    static func recoverSnapshotsOnly(from local: any JournalStorage, logger: Logger) throws(JournalError) -> JournalRecovery {
        let recovery = try local.recover()
        // A damaged local snapshot was passed over for an older one (or none): the log has every
        // record after it, so the replica only has more to apply.
        recovery.logDamage(of: local, logger: logger)
        guard recovery.earliestVersion == nil else {
            throw JournalError(
                code: .unusable,
                message: "the data directory holds a single-node journal (versions \(recovery.earliestVersion ?? 0)…\(recovery.lastVersion)); a replica of a shared log keeps only snapshots there: use another data directory"
            )
        }
        // After that check: a single-node journal of an earlier build (no role recorded) that
        // still has records is refused above without being marked as a replica's. One whose
        // retention removed every record cannot be told from a replica's: taken, with a warning.
        if try local.claim(for: .replica) {
            logger.warning(
                "the data directory's journal \(local.location) was written by an earlier build and holds snapshots only: it is taken as this replica's. If it was a server's on its own (not a replica's), stop now: its state is not the shared log's"
            )
        }
        return recovery
    }

    /// Checks the snapshot of version `restored` in `local` against `log` and registers it
    /// there: the log must be the one the snapshots came from, not end before the snapshot, and
    /// hold every record after it. Records the log's identity in `local` the first time. When
    /// PostgreSQL cannot be reached, only warns: the follower checks again before it applies
    /// anything (``verifier(of:store:ending:registration:)``).
    static func check(
        _ local: any JournalStorage, restoredAt restored: UInt64, against log: any SharedLog,
        registeringWith registration: ReplicaRegistration, logger: Logger
    ) throws(JournalError) {
        let recordedLog = try local.sharedLogIdentity()
        var checkedLog: String?
        do throws(JournalError) {
            let identity = try log.identity()
            if let recordedLog, recordedLog != identity {
                throw Self.foreignLog(local: local, recorded: recordedLog, found: identity)
            }
            let extent = try registration.register(snapshot: restored).registration.extent
            guard restored <= extent.head else {
                throw JournalError(
                    code: .corrupt,
                    message: "the local snapshot is of version \(restored) but the shared log ends at \(extent.head): the snapshot belongs to another log; move the data directory aside"
                )
            }
            guard extent.holdsEveryRecord(after: restored) else {
                throw JournalError(
                    code: .recordsRemoved,
                    message: "the shared log holds versions \(extent.earliest.map(String.init) ?? "none") through \(extent.head): the records after version \(restored) (this replica's \(restored == 0 ? "start, without a local snapshot" : "newest local snapshot")) were removed by journalRetention once every registered replica's snapshot had passed them; copy the data directory of another replica of this log (its snapshot) to \(local.location) and start again"
                )
            }
            checkedLog = identity
        } catch where error.code == .writeFailed {
            // PostgreSQL cannot be reached now: start (healthz 503) and let the follower catch
            // up once it can; the snapshot cannot be checked against the log then, and the
            // replica registers at its first renewal (the follower stops, saying why, if
            // retention removed records it needs meanwhile).
            logger.warning("cannot check the local snapshot against the shared log now (it is checked when the log is reached, before anything is applied): \(error)")
        }
        if let checkedLog, recordedLog == nil {
            try local.recordSharedLogIdentity(checkedLog)
        }
    }

    /// What the follower runs each time it reaches the log, before it reads: the log must be the
    /// one the snapshots came from, and hold every version applied (not a database restored from
    /// an older backup). Otherwise the replica stops following, and registers and releases
    /// nothing in that log.
    static func verifier(
        of local: any JournalStorage, store: Store<State>, ending: Lock<ReplicaEnding>, registration: ReplicaRegistration
    ) -> @Sendable (_ identity: String, _ head: UInt64) throws -> Void {
        { identity, head in
            func refuseTheLog() {
                ending.withLock { $0.foreign = true }
                registration.stop()
            }
            let recorded = try local.sharedLogIdentity()
            if let recorded, recorded != identity {
                refuseTheLog()
                throw Self.foreignLog(local: local, recorded: recorded, found: identity)
            }
            let applied = store.version
            guard head >= applied else {
                refuseTheLog()
                throw JournalError(
                    code: .corrupt,
                    message: "the shared log ends at version \(head), but this replica has applied version \(applied): the log lost versions (a database restored from an older backup?) or is not the one this replica followed, and its state cannot follow it. Move the data directory \(local.location) aside to start this replica from the log"
                )
            }
            if recorded == nil {
                try local.recordSharedLogIdentity(identity)
            }
        }
    }

    /// Applies a page of the log's entries to `store` through its reducers, in one turn of the
    /// store (``Store/replay(contentsOf:)``); throws (stopping the following) for an entry this
    /// build cannot decode, or one that does not land on its version — after applying the entries
    /// before it, as one by one would.
    static func apply(_ entries: [LogEntry], to store: Store<State>, codec: ActionJournalCodec) throws {
        let first = store.version + 1
        var actions: [any StoreAction] = []
        actions.reserveCapacity(entries.count)
        var failure: JournalError?
        for (offset, entry) in zip(UInt64(0)..., entries) {
            guard entry.record.version == first + offset else {
                failure = JournalError(code: .corrupt, message: "log version \(entry.record.version) would be applied as local version \(first + offset): the replica's state does not follow the log")
                break
            }
            do {
                actions.append(try codec.action(from: entry.record))
            } catch {
                failure = JournalError(code: .corrupt, message: "log version \(entry.record.version) \(codec.unreadable(entry.record, error))")
                break
            }
        }
        if !actions.isEmpty {
            store.replay(contentsOf: actions)
        }
        if let failure { throw failure }
    }

    /// The error of a data directory whose snapshots belong to another shared log.
    static func foreignLog(local: any JournalStorage, recorded: String, found: String) -> JournalError {
        JournalError(
            code: .corrupt,
            message: "the snapshots in \(local.location) belong to the shared log \(recorded), but this database holds the log \(found) (another database, or one made anew): a replica must not apply one log's versions over another's state. Give this replica an empty data directory (or a copy of a replica's of this log), or point postgresURL at the log it belongs to"
        )
    }
}
