import ConcurrencyKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The stores of a server that keeps everything in memory (`REMVVM_IN_MEMORY`), and of tests:
/// nothing survives the process. ``StoreID/default`` exists from the start and cannot be deleted.
///
/// The ids are kept sorted (``StoreID/<(_:_:)``, byte order), so a listing page costs a binary
/// search and the page, not a sort of every store; a creation or deletion moves the ids after it
/// (a memory move of 16 bytes per store behind it: about a millisecond at a million stores).
public final class MemoryStoreCatalog: StoreCatalog {
    /// A store: what does not change after its creation, and its activity.
    private struct Entry {
        /// Its version and `lastActionAt` are the activity's.
        let description: StoreDescription
        let activity: StoreActivity

        init(_ description: StoreDescription) {
            self.description = description
            activity = StoreActivity(version: description.version, lastActionAt: description.lastActionAt)
        }

        var current: StoreDescription { activity.complete(description) }
    }

    private struct State {
        var entries: [StoreID: Entry] = [:]
        /// Every id of `entries`, ascending.
        var sortedIDs: [StoreID] = []
    }

    private let state: Lock<State>

    /// A catalog holding only ``StoreID/default``, created at `time` (milliseconds since 1970;
    /// default: now).
    public init(createdAt time: Int64 = MemoryStoreCatalog.now()) {
        var initial = State()
        let description = StoreDescription(
            id: .default, version: 0, createdAt: time, lastActionAt: nil, incarnation: Self.newIncarnation()
        )
        initial.entries[.default] = Entry(description)
        initial.sortedIDs = [.default]
        state = Lock(initial)
    }

    /// The store's description; nil when it does not exist.
    public func describe(_ id: StoreID) -> StoreDescription? {
        state.withLock { $0.entries[id] }?.current
    }

    /// Where the store's actions are recorded (``StoreActivity/record(version:at:)``), once
    /// looked up: nil when it does not exist. A store deleted and created again has a new one.
    public func activity(of id: StoreID) -> StoreActivity? {
        state.withLock { $0.entries[id]?.activity }
    }

    /// Creates the store with a new incarnation unless it exists or `limit` stores exist.
    public func create(_ id: StoreID, limit: Int, at time: Int64) -> StoreCreation {
        state.withLock { state in
            if let existing = state.entries[id] { return .existed(existing.current) }
            guard state.entries.count < limit else { return .limitReached }
            let description = StoreDescription(
                id: id, version: 0, createdAt: time, lastActionAt: nil, incarnation: Self.newIncarnation()
            )
            state.entries[id] = Entry(description)
            state.sortedIDs.insert(id, at: Self.firstIndex(in: state.sortedIDs, notBefore: id.rawValue.utf8))
            return .created(description)
        }
    }

    /// Up to `limit` descriptions of the stores whose id starts with `prefix`, after `after`, by id.
    public func list(prefix: String, after: StoreID?, limit: Int) -> [StoreDescription] {
        state.withLock { state in
            var index = Self.firstIndex(in: state.sortedIDs, notBefore: prefix.utf8)
            if let after {
                let afterIndex = Self.firstIndex(in: state.sortedIDs, notBefore: after.rawValue.utf8)
                let pastAfter = afterIndex < state.sortedIDs.count && state.sortedIDs[afterIndex] == after ? afterIndex + 1 : afterIndex
                index = max(index, pastAfter)
            }
            var page: [StoreDescription] = []
            while index < state.sortedIDs.count, page.count < limit {
                let id = state.sortedIDs[index]
                // Ids with the prefix are contiguous in byte order: the first without it ends them.
                guard id.rawValue.utf8.starts(with: prefix.utf8) else { break }
                if let entry = state.entries[id] { page.append(entry.current) }
                index += 1
            }
            return page
        }
    }

    /// Removes the store; false when it did not exist. ``StoreID/default`` is never removed.
    public func delete(_ id: StoreID) -> Bool {
        guard id != .default else { return false }
        return state.withLock { state in
            guard state.entries.removeValue(forKey: id) != nil else { return false }
            let index = Self.firstIndex(in: state.sortedIDs, notBefore: id.rawValue.utf8)
            if index < state.sortedIDs.count, state.sortedIDs[index] == id {
                state.sortedIDs.remove(at: index)
            }
            return true
        }
    }

    /// How many stores exist (``StoreID/default`` included).
    public func count() -> Int {
        state.withLock { $0.entries.count }
    }

    /// Records that the store reached `version` at `time` (milliseconds since 1970), for the
    /// `version` and `lastActionAt` of its description: the memory counterpart of what a journal
    /// keeps in the same transaction as the records. Ignored for a store that does not exist or
    /// is past `version` already. The server records through the store's ``activity(of:)``,
    /// looked up once.
    public func recordActions(of id: StoreID, version: UInt64, at time: Int64) {
        activity(of: id)?.record(version: version, at: time)
    }

    /// The wall clock in milliseconds since 1970.
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Eight random hex digits: a new incarnation (``StoreDescription/incarnation``).
    public static func newIncarnation() -> String {
        let value = UInt32.random(in: .min ... .max)
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 8)
        for position in 0..<8 {
            text[position] = digits[Int((value >> (28 - 4 * UInt32(position))) & 0xF)]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The index of the first id of `sorted` whose bytes do not precede `bytes`.
    private static func firstIndex(in sorted: [StoreID], notBefore bytes: String.UTF8View) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].rawValue.utf8.lexicographicallyPrecedes(bytes) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
