import ConcurrencyKit
import MicroHTTP

/// Encoded view models by name, key and state version: a view model is made by the state's factory,
/// so the version identifies it, and repeated reads of one version skip the factory, the encoder
/// and the making of the answer (kept in libmicrohttpd's form, ``MicroHTTP/Response/preparedForReuse()``).
///
/// Bounded: keys come from clients (`?key=`), so past `capacity` entries the cache starts over.
final class ViewModelCache: Sendable {
    /// A cached answer: the `200` response with the JSON, or "the factory makes none in that state".
    enum Entry: Sendable {
        case answer(Response)
        case unavailable
    }

    /// Keyed by ``ViewModelSubject``, which compares by code points: keys that differ in bytes get
    /// their own entries.
    private let entries = Lock<[ViewModelSubject: (version: UInt64, entry: Entry)]>([:])
    private let capacity: Int

    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// The cached answer for `name`/`key` at `version`, if any.
    func entry(name: String, key: String?, version: UInt64) -> Entry? {
        entries.withLock { entries in
            guard let cached = entries[ViewModelSubject(name: name, key: key)], cached.version == version else { return nil }
            return cached.entry
        }
    }

    /// Remembers the answer for `name`/`key` at `version` unless a newer one is cached.
    func store(_ entry: Entry, name: String, key: String?, version: UInt64) {
        entries.withLock { entries in
            let cacheKey = ViewModelSubject(name: name, key: key)
            if let cached = entries[cacheKey], cached.version > version { return }
            if entries.count >= capacity, entries[cacheKey] == nil {
                entries.removeAll(keepingCapacity: true)
            }
            entries[cacheKey] = (version, entry)
        }
    }
}
