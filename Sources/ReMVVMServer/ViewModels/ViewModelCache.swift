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

    /// What is cached: answers without a key by the view model's slot (its position among the
    /// registered names: an array index, no hashing), answers with a key by ``ViewModelSubject``,
    /// which compares by code points (keys that differ in bytes get their own entries).
    private struct Entries {
        var keyless: [(version: UInt64, entry: Entry)?] = []
        var keyed: [ViewModelSubject: (version: UInt64, entry: Entry)] = [:]
    }

    private let entries = Lock(Entries())
    private let capacity: Int

    /// A cache of at most `capacity` answers with a key (besides one without a key per view model).
    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// The cached answer for the view model in `slot` (named `name`) with `key` at `version`, if any.
    func entry(slot: Int, name: String, key: String?, version: UInt64) -> Entry? {
        entries.withLock { entries in
            let cached = if key == nil {
                slot < entries.keyless.count ? entries.keyless[slot] : nil
            } else {
                entries.keyed[ViewModelSubject(name: name, key: key)]
            }
            guard let cached, cached.version == version else { return nil }
            return cached.entry
        }
    }

    /// Remembers the answer for the view model in `slot` (named `name`) with `key` at `version`,
    /// unless a newer one is cached.
    func store(_ entry: Entry, slot: Int, name: String, key: String?, version: UInt64) {
        entries.withLock { entries in
            guard key != nil else {
                if slot >= entries.keyless.count {
                    entries.keyless.append(contentsOf: repeatElement(nil, count: slot + 1 - entries.keyless.count))
                }
                if let cached = entries.keyless[slot], cached.version > version { return }
                entries.keyless[slot] = (version, entry)
                return
            }
            let cacheKey = ViewModelSubject(name: name, key: key)
            if let cached = entries.keyed[cacheKey], cached.version > version { return }
            if entries.keyed.count >= capacity, entries.keyed[cacheKey] == nil {
                entries.keyed.removeAll(keepingCapacity: true)
            }
            entries.keyed[cacheKey] = (version, entry)
        }
    }
}
