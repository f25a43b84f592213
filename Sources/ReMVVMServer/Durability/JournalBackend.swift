import ConcurrencyKit
import Journal
import Logging
import ReMVVM

/// A store kept in a journal of its own (``DurableRuntime``): restored from it at start, every
/// reduce journaled (group commit) before anything can see it, every answer sent once what it
/// names is durable, writes refused with 503 while commits fail.
final class JournalBackend<State: StoreState & Codable>: RuntimeBackend {
    // What a durable request reads first, in the object's first cache line: a store touched once
    // in a while costs a miss per line.
    /// Set once by ``start(keys:metrics:)``.
    private let started = RuntimeSlot<DurableRuntime<State>>()
    /// Whether a request may commit on its own thread (only while its connection is alone).
    let requestConnections: RequestConnections
    let store: Store<State>
    let logger: Logger
    /// The journal it keeps the store in.
    let storage: any JournalStorage
    let codec: ActionJournalCodec
    private let keeping: JournalKeeping

    /// Keeps `store` in `storage`, with the snapshot interval and retention of `configuration`;
    /// nothing is read before ``start(keys:metrics:)``.
    init(
        store: Store<State>,
        storage: any JournalStorage,
        codec: ActionJournalCodec,
        configuration: ServiceConfiguration,
        requestConnections: RequestConnections,
        logger: Logger
    ) {
        self.store = store
        self.storage = storage
        self.codec = codec
        self.logger = logger
        self.requestConnections = requestConnections
        keeping = JournalKeeping(configuration)
    }

    var keptAnswers: (any JournalStorage)? { storage }

    var isDurable: Bool { true }

    var runtime: DurableRuntime<State>? {
        started.runtime
    }

    /// Restores the store from the journal and starts journaling; the journal's commits keep the
    /// answers of idempotency keys and feed the commit metrics. Throws `JournalError` when the
    /// journal cannot be read.
    func start(keys: IdempotencyKeys, metrics: ServiceMetrics?) throws {
        let made = try started.start {
            try DurableRuntime(
                store: store, storage: storage, codec: codec, snapshotEvery: keeping.snapshotEvery, retention: keeping.retention, logger: logger
            )
        }
        guard let runtime = made else { return }
        runtime.journal.onAnswers { answers, result in
            keys.journalCommitted(answers, result)
        }
        if let metrics {
            // Once a transaction, however many stores' parts it carried: every store of the
            // service registers under the same key.
            runtime.journal.committer.onTransaction(key: ObjectIdentifier(metrics)) { records, duration in
                metrics.journalCommitted(actions: records, duration: duration)
            }
        }
    }

    var health: StoreHealth {
        guard let failure = runtime?.journal.failure else { return .ok }
        // Writes get 503 while commits fail: not ready for them (reads go on).
        return StoreHealth(status: .failing, reason: failure.message)
    }

    func actionLog(after version: UInt64, limit: Int) throws(JournalError) -> (records: [JournalRecord], earliest: UInt64?) {
        try storage.actionLog(after: version, limit: limit)
    }
}
