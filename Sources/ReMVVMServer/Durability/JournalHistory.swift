import ConcurrencyKit
import Foundation
import Journal
import Logging
import ReMVVM

/// Where the event hub finds versions older than its ring: in durable mode, the journal
/// (``JournalHistory``). Every call may block on storage: call it off the hub's and the store's
/// threads.
protocol VersionHistory<State>: Sendable {
    associatedtype State: StoreState

    /// A state from which every version after `version` can be rebuilt — the newest kept snapshot
    /// at or before `version`, or the initial state, when the journal holds every record after
    /// it — or nil when nothing can.
    func base(forVersionsAfter version: UInt64) -> StoreSnapshot<State>?

    /// Up to `limit` records with a version greater than `version`, oldest first.
    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord]

    /// The state `record`'s action makes of `state`, through the reducers only (no middleware,
    /// no observers; `docs/store-semantics.md`, rule 20). Throws when the action does not decode.
    func reduce(_ state: State, with record: JournalRecord) throws -> State
}

extension VersionHistory {
    /// The state at `version`: the base for it (a snapshot at or before it, or the initial state),
    /// then its records through the reducers, read in pages; nil when the journal cannot rebuild it
    /// (no base, or a record missing). Reads storage: call it off the hub's and the store's threads.
    func state(atVersion version: UInt64) throws -> State? {
        guard let base = base(forVersionsAfter: version) else { return nil }
        var state = base.state
        var reached = base.version
        while reached < version {
            let records = try records(after: reached, limit: Int(min(1_024, version - reached)))
            guard !records.isEmpty else { return nil }
            for record in records {
                // Every version in turn (a page holds at most the versions up to `version`): a
                // record missing — damage in history older than a store's load checks — ends the
                // rebuild instead of being skipped over.
                guard record.version == reached + 1, record.version <= version else { return nil }
                state = try reduce(state, with: record)
                reached = record.version
            }
        }
        return state
    }
}

/// The versions a durable store's journal can rebuild: a snapshot decoded as the store's restart
/// does (``DurableRuntime``), then its records through the store's reducers.
final class JournalHistory<State: StoreState & Decodable>: VersionHistory {
    private let storage: any JournalStorage
    private let codec: ActionJournalCodec
    private let store: Store<State>
    /// The state before any reduce (version 0), when known: the base while no snapshot precedes
    /// a version and the journal still holds its records from version 1.
    private let initial: StoreSnapshot<State>?
    private let logger: Logger
    /// The snapshot decoded last: streams that resume after a restart mostly start from the
    /// same one, and a snapshot never changes once written.
    private let decoded = Lock<StoreSnapshot<State>?>(nil)

    init(storage: any JournalStorage, codec: ActionJournalCodec, store: Store<State>, initial: StoreSnapshot<State>?, logger: Logger) {
        self.storage = storage
        self.codec = codec
        self.store = store
        self.initial = initial
        self.logger = logger
    }

    func base(forVersionsAfter version: UInt64) -> StoreSnapshot<State>? {
        do {
            let base: StoreSnapshot<State>
            if let snapshot = try storage.snapshot(atOrBefore: version) {
                base = try decode(snapshot)
            } else if let initial {
                base = initial
            } else {
                return nil
            }
            // Records are removed oldest first, so the first one after the base tells whether all
            // are still there.
            guard try storage.records(after: base.version, limit: 1).first?.version == base.version + 1 else {
                return nil
            }
            return base
        } catch {
            logger.warning("the journal cannot rebuild the versions after \(version) for a resuming event stream: \(error)")
            return nil
        }
    }

    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try storage.records(after: version, limit: limit)
    }

    func reduce(_ state: State, with record: JournalRecord) throws -> State {
        // A record that does not match its checksum is never applied: the versions before it
        // are sent, then the stream resets (``JournalReplay``).
        try [record].requireIntact(in: storage)
        return store.reduced(state, with: try codec.action(from: record))
    }

    /// The state a snapshot holds, decoded as a restart decodes it.
    private func decode(_ snapshot: JournalSnapshot) throws -> StoreSnapshot<State> {
        if let cached = decoded.withLock({ $0 }), cached.version == snapshot.version {
            return cached
        }
        let state = try JSONDecoder().decode(State.self, from: Data(snapshot.state))
        let base = StoreSnapshot(version: snapshot.version, state: state)
        decoded.withLock { $0 = base }
        return base
    }
}
