import ConcurrencyKit
import DequeModule
import Journal
import ReMVVM

/// The action log of a store without a journal: its newest reduces, at most `capacity` (1,000) and
/// at most its share of the server's `actionLogMemoryLimit` (a ``SharedBudget`` over the stores
/// keeping actions: 100 stores keep 1,000 each, 1,000 stores 100). Kept as the actions themselves
/// (encoded only when read), so the dispatch path pays one short lock and an append.
final class RecentActions: Sendable {
    private struct Entry: Sendable {
        let version: UInt64
        let action: any StoreAction
        let time: Int64
    }

    private struct Log: Sendable {
        /// Oldest first.
        var entries: Deque<Entry> = []
        /// Counted in the budget: the log has kept an action since it started.
        var joined = false

        /// Drops the oldest entries past `limit`.
        mutating func trim(to limit: Int) {
            while entries.count > limit {
                entries.removeFirst()
            }
        }

        /// Up to `limit` entries with a version greater than `version`, oldest first.
        func entries(after version: UInt64, limit: Int) -> [Entry] {
            // Versions rise from the first entry to the last: the first one wanted by bisection.
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].version > version { high = middle } else { low = middle + 1 }
            }
            return Array(entries[low..<min(entries.count, low + limit)])
        }
    }

    private let log = Lock(Log())
    private let codec: ActionJournalCodec
    private let budget: SharedBudget
    private let capacity: Int

    init(store: Store<some StoreState>, codec: ActionJournalCodec, budget: SharedBudget, capacity: Int = 1_000) {
        self.codec = codec
        self.budget = budget
        self.capacity = max(1, capacity)
        store.addPublicationHandler { [self] publication in
            record(Entry(version: publication.version, action: publication.action, time: ActionJournalCodec.now()))
        }
    }

    /// The publication hook's work, outside the generic initializer: there the lock's call was
    /// not specialized.
    private func record(_ entry: Entry) {
        let joining = log.withLock { log -> Bool in
            let joining = !log.joined
            log.joined = true
            log.entries.append(entry)
            log.trim(to: limit(joining: joining))
            return joining
        }
        if joining {
            budget.join(ObjectIdentifier(self)) { [weak self] in self?.trim() }
        }
    }

    /// The most entries kept now (`joining`: before this log counts in the budget).
    private func limit(joining: Bool) -> Int {
        // At least one: the newest action stays readable however many stores share the budget.
        max(1, min(capacity, budget.share(joining: joining)))
    }

    /// Cuts the log to its share now (other logs joined since its last action).
    private func trim() {
        log.withLock { $0.trim(to: limit(joining: false)) }
    }

    /// The store stopped: its log no longer counts in the budget.
    func stop() {
        budget.leave(ObjectIdentifier(self))
    }

    /// Up to `limit` records with a version greater than `version`, oldest first, and the oldest
    /// version kept. An action without a wire name appears under its Swift type name.
    func records(after version: UInt64, limit: Int) -> (records: [JournalRecord], earliest: UInt64?) {
        let (entries, earliest) = log.withLock { log in
            (log.entries(after: version, limit: limit), log.entries.first?.version)
        }
        let records = entries.map { entry in
            codec.record(of: entry.action, version: entry.version, time: entry.time)
                ?? JournalRecord(
                    version: entry.version,
                    type: String(describing: type(of: entry.action)),
                    payload: Array("{}".utf8),
                    time: entry.time
                )
        }
        return (records, earliest)
    }
}
