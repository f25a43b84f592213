import ConcurrencyKit
import Journal
import ReMVVM

/// The action log of a store without a journal: the newest `capacity` reduces. Kept as the
/// actions themselves (encoded only when read), so the dispatch path pays one short lock and one
/// slot of a ring written over in place.
final class RecentActions: Sendable {
    private struct Entry: Sendable {
        let version: UInt64
        let action: any StoreAction
        let time: Int64
    }

    /// The newest entries, at most `capacity`: appended until full, then each new one takes the
    /// oldest one's slot.
    private struct Ring: Sendable {
        let capacity: Int
        private var slots: [Entry] = []
        /// The oldest entry's slot.
        private var oldest = 0

        init(capacity: Int) {
            self.capacity = capacity
        }

        mutating func append(_ entry: Entry) {
            guard slots.count == capacity else {
                slots.append(entry)
                return
            }
            slots[oldest] = entry
            oldest = oldest + 1 == capacity ? 0 : oldest + 1
        }

        /// The oldest entry kept.
        var first: Entry? {
            slots.isEmpty ? nil : slots[oldest]
        }

        /// Up to `limit` entries with a version greater than `version`, oldest first.
        func entries(after version: UInt64, limit: Int) -> [Entry] {
            var found: [Entry] = []
            for offset in slots.indices where found.count < limit {
                let entry = slots[(oldest + offset) % slots.count]
                if entry.version > version { found.append(entry) }
            }
            return found
        }
    }

    private let entries: Lock<Ring>
    private let codec: ActionJournalCodec

    init(store: Store<some StoreState>, codec: ActionJournalCodec, capacity: Int = 1_000) {
        self.codec = codec
        let entries = Lock(Ring(capacity: max(1, capacity)))
        self.entries = entries
        store.addPublicationHandler { publication in
            Self.record(Entry(version: publication.version, action: publication.action, time: ActionJournalCodec.now()), in: entries)
        }
    }

    /// The publication hook's work, outside the generic initializer: there the lock's call was
    /// not specialized.
    private static func record(_ entry: Entry, in entries: Lock<Ring>) {
        entries.withLock { $0.append(entry) }
    }

    /// Up to `limit` records with a version greater than `version`, oldest first, and the oldest
    /// version kept. An action without a wire name appears under its Swift type name.
    func records(after version: UInt64, limit: Int) -> (records: [JournalRecord], earliest: UInt64?) {
        let (entries, earliest) = entries.withLock { entries in
            (entries.entries(after: version, limit: limit), entries.first?.version)
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
