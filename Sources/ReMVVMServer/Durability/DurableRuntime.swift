import ConcurrencyKit
import Foundation
import Journal
import Logging
import ReMVVM

/// A store made durable: restored from its journal at start, every reduce journaled (group
/// commit) before anything can see it, a snapshot every `snapshotEvery` versions and at stop.
final class DurableRuntime<State: StoreState & Codable>: Sendable {
    let journal: GroupCommitJournal
    let gate: CommitGate<State>
    let storage: any JournalStorage
    private let snapshots: SnapshotWriter<State>
    private let logger: Logger
    private let stopped = Lock(false)

    /// Restores `store` from `storage` (newest snapshot, then every record after it through the
    /// reducers only), then starts journaling. Throws ``JournalError`` when the journal cannot be
    /// read or holds an action this server no longer knows: never start empty over data.
    init(
        store: Store<State>,
        storage: any JournalStorage,
        codec: ActionJournalCodec,
        snapshotEvery: UInt64,
        retention: JournalRetention,
        logger: Logger
    ) throws(JournalError) {
        // The state before any reduce: where the journal's versions start when no snapshot
        // precedes them.
        let initial = store.snapshot
        let recovery = try storage.recover()
        recovery.logDamage(of: storage, logger: logger)
        if try storage.claim(for: .singleNode) {
            logger.warning(
                "the journal \(storage.location) was written by an earlier build and holds snapshots but no records: it is taken as this server's own (its retention removed every record). If it is a replica's data directory, stop now: a server on its own would go on from one of the shared log's versions with versions of its own"
            )
        }
        var restoredVersion: UInt64 = 0
        if let snapshot = recovery.snapshot {
            try store.restore(from: snapshot, keptIn: storage)
            restoredVersion = snapshot.version
        }
        while true {
            let records = try storage.records(after: restoredVersion, limit: 10_000).intact(in: storage)
            guard !records.isEmpty else { break }
            for record in records {
                guard record.version == restoredVersion + 1 else {
                    throw JournalError(code: .corrupt, message: "the journal \(storage.location) has version \(record.version) after \(restoredVersion): versions in between are missing; restore the data directory from a backup, or move it aside to start empty")
                }
                let action: any StoreAction
                do {
                    action = try codec.action(from: record)
                } catch {
                    throw JournalError(
                        code: .corrupt,
                        message: "the journal \(storage.location): version \(record.version) \(codec.unreadable(record, error)); or move the data directory aside to start empty"
                    )
                }
                restoredVersion = store.replay(action)
            }
        }
        if recovery.journalWasMissing {
            logger.warning("the data directory of \(storage.location) was used before (its lock file is there) but the journal file was missing or empty: starting a new journal at version 0. If it held actions, stop now and restore it from a backup; clients' version tags from before name other states now")
        }
        if recovery.previousStopWasUnclean {
            logger.warning("the journal \(storage.location) was not closed by the previous server (it crashed or was killed): every complete commit is kept (the store default restored to version \(restoredVersion), any other store when it loads); a last commit cut short, if there was one, was never acknowledged and is discarded")
        }
        if restoredVersion > 0 {
            logger.notice("restored version \(restoredVersion) from the journal (snapshot \(recovery.snapshot?.version ?? 0), then \(restoredVersion - (recovery.snapshot?.version ?? 0)) replayed)")
        }
        if let committer = storage.sharedCommitter {
            journal = GroupCommitJournal(storage: storage, lastVersion: restoredVersion, committer: committer)
        } else {
            journal = GroupCommitJournal(storage: storage, lastVersion: restoredVersion)
        }
        let history = JournalHistory(
            storage: storage,
            codec: codec,
            store: store,
            initial: initial.version == 0 ? initial : nil,
            logger: logger
        )
        self.storage = storage
        self.logger = logger
        snapshots = SnapshotWriter(
            storage: storage, every: snapshotEvery, newest: recovery.snapshot?.version ?? 0, logger: logger
        ) { version in
            // Records older than the retention before this snapshot are no longer needed.
            if let removable = try retention.removableThrough(
                snapshotVersion: version,
                now: ActionJournalCodec.now(),
                newestBefore: { time in try storage.newestVersion(recordedBefore: time) }
            ) {
                try storage.removeRecords(through: removable)
            }
        }
        // The gate releases and asks for snapshots in one listener, held in the journal's state:
        // the commit thread calls it for every store's part of a commit, and over many stores
        // every object it touches on the way is cold there.
        gate = CommitGate(store: store, journal: journal, codec: codec, history: history, snapshots: snapshots, logger: logger)
        store.addReduceCheck(handingOn: codec.reduceCheck)
        journal.onDurable(gate)
        guard journal.start() else {
            throw JournalError(code: .unusable, message: "could not start the journal thread")
        }
    }

    /// Commits what is queued, writes a snapshot of the newest durable state and closes the
    /// journal; says which versions were lost if commits were failing. Runs once (the service
    /// calls it both before the streams end and when its group stops).
    func stop() {
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        if let lost = journal.stop() {
            logger.error("stopping while the journal fails: versions \(lost.lowerBound)...\(lost.upperBound) were never committed and are lost (their requests got 503 and were not acknowledged); the journal ends at version \(lost.lowerBound - 1)")
        }
        snapshots.finish(with: gate.snapshot)
        gate.close()
        storage.close()
    }
}

extension Store where State: Decodable {
    /// Restores the state and version `snapshot` holds (a journal's or a replica's newest, read
    /// from `storage`); throws ``Journal/JournalErrorCode/corrupt``, naming the storage's
    /// location, when it does not decode as `State`.
    func restore(from snapshot: JournalSnapshot, keptIn storage: any JournalStorage) throws(JournalError) {
        do {
            let state = try JSONDecoder().decode(State.self, from: Data(snapshot.state))
            restore(state: state, version: snapshot.version)
        } catch {
            throw JournalError(code: .corrupt, message: "the journal \(storage.location): the snapshot of version \(snapshot.version) cannot be decoded as the current state type: \(error); run the build that wrote it, or move the data directory aside")
        }
    }
}
