import ConcurrencyKit
import Journal
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// This replica's registration in the shared log (`docs/replicas.md`, "Retention"): the version
/// of its newest local snapshot, which retention keeps every record after, registered after each
/// snapshot and renewed while the replica runs. A registration that is no longer renewed
/// (`replicaExpiry`) is taken for a replica that is gone and stops holding records back.
///
/// Registrations are made one at a time, never of an older snapshot than one made before: a
/// renewal cannot undo the registration of a snapshot written meanwhile.
final class ReplicaRegistration: Sendable {
    private let log: any SharedLog
    private let name: String
    private let logger: Logger
    /// The newest snapshot to register; held while registering (one registration at a time).
    private let snapshot: Lock<UInt64>
    private let renewal = Lock<Renewal>(Renewal())

    private struct Renewal {
        var thread: pthread_t?
        var stopping = false
        /// Whether the last renewal failed (logged once until one succeeds).
        var failing = false
        /// The snapshot whose renewal the log refused last (logged once per snapshot).
        var refused: UInt64?
    }

    /// A registration of replica `name` whose newest snapshot is `snapshot` (0: none); nothing
    /// is registered before ``register(snapshot:)`` or the first renewal.
    init(log: any SharedLog, name: String, snapshot: UInt64, logger: Logger) {
        self.log = log
        self.name = name
        self.logger = logger
        self.snapshot = Lock(snapshot)
    }

    /// Registers `snapshot`, or the newer one registered before it, and returns the log's extent
    /// as seen then; registers nothing when the log refuses it (see
    /// ``Journal/SharedLog/register(replica:snapshot:)``).
    @discardableResult
    func register(snapshot newest: UInt64) throws(JournalError) -> (snapshot: UInt64, extent: SharedLogExtent) {
        try snapshot.withLock { snapshot throws(JournalError) in
            snapshot = max(snapshot, newest)
            return (snapshot, try log.register(replica: name, snapshot: snapshot))
        }
    }

    /// Renews the registration every `interval` on a thread of its own until ``stop()``; false
    /// when the thread cannot start.
    func startRenewing(every interval: Duration) -> Bool {
        let thread = startThread(named: "replica-renewal") { [self] in
            while !renewal.wait(timeout: interval, until: \.stopping) {
                renew()
            }
        }
        renewal.withLock { $0.thread = thread }
        return thread != nil
    }

    /// Stops renewing (waits for a renewal under way).
    func stop() {
        let thread = renewal.withLock { renewal -> pthread_t? in
            renewal.stopping = true
            defer { renewal.thread = nil }
            return renewal.thread
        }
        renewal.notifyAll()
        if let thread { pthread_join(thread, nil) }
    }

    /// One renewal; what goes wrong is logged, once until it changes.
    private func renew() {
        do {
            let (snapshot, extent) = try register(snapshot: 0)
            let refused = !(snapshot <= extent.head && extent.holdsEveryRecord(after: snapshot))
            let (recovered, firstRefusal) = renewal.withLock { renewal -> (Bool, Bool) in
                defer { renewal.failing = false; renewal.refused = refused ? snapshot : nil }
                return (renewal.failing, refused && renewal.refused != snapshot)
            }
            if firstRefusal {
                logger.error("the shared log refused to renew replica \(name)'s registration: the records after its newest snapshot (version \(snapshot)) were removed (was it silent for longer than replicaExpiry?); it runs on, but could not restart from that snapshot until its next one is written and registered")
            } else if recovered, !refused {
                logger.notice("replica \(name)'s registration renewed (snapshot of version \(snapshot))")
            }
        } catch {
            let first = renewal.withLock { renewal -> Bool in
                defer { renewal.failing = true }
                return !renewal.failing
            }
            if first {
                logger.warning("cannot renew replica \(name)'s registration in the shared log now (\(error)); retrying")
            }
        }
    }
}
