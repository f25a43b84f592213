import ConcurrencyKit
import Foundation
import Journal
import Logging

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
    /// This run of this process, as the log records it: host, process id and a random part.
    let instance: String
    private let renewalInterval: Duration
    private let logger: Logger
    /// What was registered; held while registering (one registration at a time).
    private let registered: Lock<Registered>
    private let renewal = Lock<Renewal>(Renewal())
    private let renewer = Worker(named: "replica-renewal")

    private struct Registered {
        /// The newest snapshot to register.
        var snapshot: UInt64
        /// Whether this process's registration was ever accepted.
        var ever = false
        /// Whether the name was released (``release()``): registrations then record no process.
        var released = false
    }

    /// When the log last accepted this replica's registration (made or renewed), in
    /// milliseconds since 1970; 0 before the first. Read without waiting for a registration
    /// under way.
    private let acceptedAt = Lock<Int64>(0)

    /// ``acceptedAt`` in seconds (for `remvvm_replica_registration_renewed_timestamp_seconds`):
    /// while renewals fail or are refused it stays behind, and once it is `replicaExpiry`
    /// behind, retention no longer keeps this replica's snapshot.
    var lastAcceptedSeconds: Double {
        Double(acceptedAt.withLock { $0 }) / 1_000
    }

    private struct Renewal {
        /// Whether the last renewal failed (logged once until one succeeds).
        var failing = false
        /// The snapshot whose renewal the log refused last (logged once per snapshot).
        var refused: UInt64?
    }

    /// A registration of replica `name` whose newest snapshot is `snapshot` (0: none), renewed
    /// every `renewal` once ``startRenewing()`` is called; nothing is registered before
    /// ``register(snapshot:)`` or the first renewal.
    init(log: any SharedLog, name: String, snapshot: UInt64, renewal: Duration, logger: Logger) {
        self.log = log
        self.name = name
        self.renewalInterval = renewal
        self.logger = logger
        registered = Lock(Registered(snapshot: snapshot))
        instance = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(String(UInt32.random(in: .min ... .max), radix: 16))"
    }

    /// The newest snapshot registered, or to register (waits for a registration under way).
    var snapshot: UInt64 {
        registered.withLock { $0.snapshot }
    }

    /// Registers `snapshot`, or the newer one registered before it, and returns it with what the
    /// log answered; registers nothing when the log refuses it (see
    /// ``Journal/SharedLog/register(replica:instance:snapshot:)``). Says so in the log when
    /// another process registered the same name.
    @discardableResult
    func register(snapshot newest: UInt64) throws(JournalError) -> (snapshot: UInt64, registration: SharedLogRegistration) {
        try registered.withLock { registered throws(JournalError) in
            registered.snapshot = max(registered.snapshot, newest)
            let registration = try log.register(
                replica: name, instance: registered.released ? nil : instance, snapshot: registered.snapshot
            )
            noteAnotherProcess(registration, registeredBefore: registered.ever)
            if registration.registered(registered.snapshot) {
                registered.ever = true
                acceptedAt.withLock { $0 = ActionJournalCodec.now() }
            }
            return (registered.snapshot, registration)
        }
    }

    /// Logs a registration of this name by another process: since this one's own, that is
    /// another replica running under the same name (an error: each overwrites the other's
    /// snapshot); at this one's first, made within two renewals, it may be too, or this
    /// replica's previous run, killed moments ago (a warning).
    private func noteAnotherProcess(_ registration: SharedLogRegistration, registeredBefore: Bool) {
        guard let other = registration.previousInstance, other != instance else { return }
        let age = registration.previousAgeSeconds.map { "\($0) s ago" } ?? "earlier"
        if registeredBefore {
            logger.error("replica \(name): another process (\(other)) registered this name in the shared log \(age), after this one (\(instance)) did: two replicas run under one replicaName, and each overwrites the snapshot the other registered, so retention may remove records one of them needs to restart; give each replica a name of its own")
        } else if let seconds = registration.previousAgeSeconds, Duration.seconds(seconds) < renewalInterval * 2 {
            logger.warning("replica \(name): this name was registered in the shared log \(age) by another process (\(other)); unless that was this replica's previous run, two replicas run under one replicaName: give each a name of its own")
        }
    }

    /// Renews the registration every `renewal` interval on a thread of its own until ``stop()``;
    /// false when the thread cannot start.
    func startRenewing() -> Bool {
        do {
            try renewer.startRepeating(every: renewalInterval) { [self] in renew() }
            return true
        } catch {
            logger.error("replica \(name): \(error)")
            return false
        }
    }

    /// Stops renewing (waits for a renewal under way).
    func stop() {
        do {
            try renewer.stop(timeout: .seconds(60))
        } catch {
            logger.error("replica \(name): \(error) (a renewal stuck on the shared log)")
        }
    }

    /// Stops renewing and releases the name: from now on, registrations (this one, and the one
    /// of the snapshot written at a clean stop) record no process, so that the next run under
    /// this name — a restart, a new container — is not taken for a second replica using it.
    func release() {
        stop()
        registered.withLock { $0.released = true }
        do {
            try register(snapshot: 0)
        } catch {
            logger.warning("replica \(name): could not release its name in the shared log (\(error)); the next run under it may warn of another process")
        }
    }

    /// One renewal (with the registrations of the name in the log's other stores: a replica of
    /// many stores renews them all from here); what goes wrong is logged, once until it changes.
    private func renew() {
        do {
            let (snapshot, registration) = try register(snapshot: 0)
            _ = try log.renewOtherRegistrations(of: name)
            let refused = !registration.registered(snapshot)
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
