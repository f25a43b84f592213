import ConcurrencyKit
import ReMVVM

/// The JSON of the newest state encoded so far, by version, so that each state is encoded once and
/// shared by `GET /state` and the event stream.
final class EncodedStateCache<State: StoreState & Encodable>: Sendable {
    private let latest = Lock<(version: UInt64, json: [UInt8])?>(nil)

    /// The JSON of `snapshot.state`, encoded now unless this version (or the cache holds it already).
    func json(for snapshot: StoreSnapshot<State>) throws -> [UInt8] {
        if let cached = latest.withLock({ $0 }), cached.version == snapshot.version {
            return cached.json
        }
        let json = try JSONCoding.encode(snapshot.state)
        remember(json, version: snapshot.version)
        return json
    }

    /// Keeps `json` as the encoding of `version` if it is the newest seen.
    func remember(_ json: [UInt8], version: UInt64) {
        latest.withLock { latest in
            if latest.map({ $0.version < version }) ?? true {
                latest = (version, json)
            }
        }
    }
}
