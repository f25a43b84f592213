import ConcurrencyKit
import DequeModule
import Journal
import ReMVVM

/// The action log of a store without a journal: the newest `capacity` reduces. Kept as the
/// actions themselves (encoded only when read), so the dispatch path pays one short lock.
final class RecentActions: Sendable {
    private struct Entry: Sendable {
        let version: UInt64
        let action: any StoreAction
        let time: Int64
    }

    private let entries = Lock<Deque<Entry>>([])
    private let codec: ActionJournalCodec

    init(store: Store<some StoreState>, codec: ActionJournalCodec, capacity: Int = 1_000) {
        self.codec = codec
        let capacity = max(1, capacity)
        store.addPublicationHandler { [entries] publication in
            let entry = Entry(version: publication.version, action: publication.action, time: ActionJournalCodec.now())
            entries.withLock { entries in
                entries.append(entry)
                if entries.count > capacity { entries.removeFirst() }
            }
        }
    }

    /// Up to `limit` records with a version greater than `version`, oldest first, and the oldest
    /// version kept. An action without a wire name appears under its Swift type name.
    func records(after version: UInt64, limit: Int) -> (records: [JournalRecord], earliest: UInt64?) {
        let (entries, earliest) = entries.withLock { entries in
            (Array(entries.lazy.filter { $0.version > version }.prefix(limit)), entries.first?.version)
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
