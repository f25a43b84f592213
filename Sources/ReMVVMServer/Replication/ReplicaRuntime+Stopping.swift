import ConcurrencyKit
import Journal
import Logging
import ReMVVM

/// How a replica's runtime ends, under its lock: the snapshot writer's follow-up reads it.
struct ReplicaEnding: Sendable {
    /// Whether ``ReplicaRuntime/stop()`` (or another ending) ran: it runs once.
    var stopped = false
    /// Whether the log was reachable (followed, caught up) when it stopped.
    var reachable = true
    /// Whether the log turned out not to be the one its snapshots belong to, or the store was
    /// deleted from it: nothing is registered in it, nor released.
    var foreign = false
    /// Whether the last snapshot is registered by the caller of the stop, together with other
    /// stores' (``ReplicaRuntime/stopLeavingRegistration()``): a snapshot written then registers
    /// nothing itself.
    var registeredByCaller = false
}

/// What a replica's store stopped among many (``ReplicaRuntime/stopLeavingRegistration()``)
/// leaves to the batch: its last snapshot to store locally, and what to register in the log.
struct ReplicaLeftover: Sendable {
    /// The last snapshot, to store with the others' (nil: the newest stored is the state reached).
    let snapshot: JournalSnapshot?
    /// The newest snapshot stored or registered before: what to register when ``snapshot`` is
    /// nil or could not be stored.
    let stored: UInt64
    /// Whether to register it (the log is followed, and is the one the snapshots belong to).
    let registers: Bool
}

extension ReplicaRuntime {
    /// Appends what is queued, stops following (and a removal under way, after its current
    /// transaction), stops renewing and releases the name, writes a snapshot of the state
    /// reached (and registers it) and closes the local storage.
    /// Runs once: the service calls it both before the streams end and when its group stops.
    /// Unless the replica follows the log at that moment, neither the release nor the last
    /// snapshot's registration waits for it (each would wait for a connection timeout, beyond
    /// a container's grace period; a replica still catching up may never have reached it).
    func stop() {
        guard let (foreign, reachable) = beginStop(registeredByCaller: false) else { return }
        if foreign {
            registration.stop()
        } else if reachable {
            registration.release()
        } else {
            registration.stop()
            noticeUnregistered()
        }
        snapshots.finish(with: store.snapshot)
        storage.close()
    }

    /// ``stop()`` of one store among many stopped at once (``StoreStopBatch``): the same, but
    /// its last snapshot is not written here (one local transaction, one sync each), nor
    /// registered (nor the name released, nor retention run, which follows the store's next
    /// snapshot: one PostgreSQL transaction each). Returns what the caller does for every store
    /// at once, or nil when it had stopped before.
    func stopLeavingRegistration() -> ReplicaLeftover? {
        guard let (foreign, reachable) = beginStop(registeredByCaller: true) else { return nil }
        registration.stop()
        if !foreign, !reachable { noticeUnregistered() }
        let last = snapshots.finishLeavingWrite(with: store.snapshot)
        storage.close()
        return ReplicaLeftover(
            snapshot: last, stored: max(registration.snapshot, snapshots.newest), registers: !foreign && reachable
        )
    }

    /// Ends a store deleted from the log: stops following it and closes its local storage,
    /// writing and registering nothing (its rows in the log and its local snapshots go). Runs
    /// once, like ``stop()``, and instead of it.
    func discard() {
        let first = ending.withLock { ending -> Bool in
            guard !ending.stopped else { return false }
            ending.stopped = true
            ending.foreign = true  // a snapshot being written registers nothing
            return true
        }
        guard first else { return }
        log.stop()
        registration.stop()
        snapshots.waitForWriting()
        storage.close()
    }

    /// Marks the runtime stopped and stops following the log; whether the log is foreign and
    /// whether it was followed, or nil when it had stopped before.
    private func beginStop(registeredByCaller: Bool) -> (foreign: Bool, reachable: Bool)? {
        let reachable = log.status == .following
        let ended = ending.withLock { ending -> (Bool, Bool)? in
            guard !ending.stopped else { return nil }
            ending.stopped = true
            ending.reachable = reachable  // the last snapshot's registration reads it
            ending.registeredByCaller = registeredByCaller
            return (ending.foreign, reachable)
        }
        guard let ended else { return nil }
        log.stop()
        return ended
    }

    private func noticeUnregistered() {
        logger.notice("this replica does not follow the shared log now: its name is not released, nor its last snapshot registered (the next run under the name may warn of another process)")
    }

    /// What follows each snapshot written: its registration in the log, forgetting the replicas
    /// silent for `expiry`, and removing the records `retention` no longer keeps — unless the
    /// log is foreign, the stop's caller registers it, or the log was not reachable at the stop.
    static func afterSnapshot(
        ending: Lock<ReplicaEnding>, registration: ReplicaRegistration, log: any SharedLog,
        retention: JournalRetention, expiry: Duration?, logger: Logger
    ) -> @Sendable (UInt64) throws -> Void {
        { version in
            let ending = ending.withLock { $0 }
            guard !ending.foreign, !ending.registeredByCaller else { return }
            if ending.stopped, !ending.reachable {
                logger.notice("snapshot of version \(version) written; the shared log cannot be reached, so it is registered there at the next start")
                return
            }
            try registration.register(snapshot: version)
            if let expiry {
                for gone in try log.forgetReplicas(silentFor: expiry) {
                    logger.warning("forgot replica \(gone.name): its registration (snapshot of version \(gone.snapshot)) was not renewed for \(gone.silentSeconds) s, longer than replicaExpiry; retention no longer keeps records for it, so once they are removed it can restart only from another replica's data directory")
                }
            }
            let bounds = retention.sharedLogBounds(now: ActionJournalCodec.now())
            if let removed = try log.removeRecords(keeping: bounds.versions, recordedBefore: bounds.cutoff, ignoringReplicasSilentFor: expiry) {
                logger.info("removed the shared log's records through version \(removed) (journalRetention \(retention), before the oldest registered replica's snapshot)")
            }
        }
    }
}
