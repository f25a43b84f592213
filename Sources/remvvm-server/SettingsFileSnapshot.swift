import Configuration
import Foundation

/// The config file's contents: a JSON object whose members are settings (``ServerSettings/Key``).
///
/// Reads like `JSONSnapshot` and refuses a member that is no setting, naming it and the setting it
/// most likely meant (`journalSynch` → `journalSync`), so that a misspelt setting does not leave
/// its default in force unnoticed.
struct SettingsFileSnapshot: FileConfigSnapshot {
    typealias ParsingOptions = JSONSnapshot.ParsingOptions

    private let json: JSONSnapshot

    var providerName: String { json.providerName }
    var description: String { json.description }
    var debugDescription: String { json.debugDescription }

    init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
        json = try JSONSnapshot(data: data, providerName: providerName, parsingOptions: parsingOptions)
        // JSONSnapshot has read the object; its member names are not public, so read them here.
        if let object = try JSONSerialization.jsonObject(with: data.withUnsafeBytes { Data($0) }) as? [String: Any] {
            try Self.checkNames(object.keys)
        }
    }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try json.value(forKey: key, type: type)
    }

    /// Throws ``UnknownSettingsError`` naming every name in `names` that is no setting.
    static func checkNames(_ names: some Sequence<String>) throws(UnknownSettingsError) {
        let unknown = names.filter { ServerSettings.Key(rawValue: $0) == nil }.sorted()
        if !unknown.isEmpty {
            throw UnknownSettingsError(names: unknown)
        }
    }
}

/// Config file members that are no setting.
struct UnknownSettingsError: Error, CustomStringConvertible {
    /// The members, sorted.
    let names: [String]

    var description: String {
        let each = names.map { name in
            ServerSettings.Key.closest(to: name).map { "\"\(name)\" (did you mean \($0.rawValue)?)" } ?? "\"\(name)\""
        }
        let noun = names.count == 1 ? "is no setting" : "are no settings"
        return "\(each.joined(separator: ", ")) \(noun); the settings are "
            + ServerSettings.Key.allCases.map(\.rawValue).joined(separator: ", ")
    }
}

extension ServerSettings.Key {
    /// The setting whose name `name` most likely misspells: equal ignoring case, or at most two
    /// edits away (a third of the name for short ones); nil when none is that close.
    static func closest(to name: String) -> Self? {
        let lowered = Array(name.lowercased())
        var best: (key: Self, distance: Int)?
        for key in allCases {
            let distance = editDistance(lowered, Array(key.rawValue.lowercased()))
            if distance < (best?.distance ?? .max) {
                best = (key, distance)
            }
        }
        guard let best, best.distance <= min(2, max(1, lowered.count / 3)) else { return nil }
        return best.key
    }

    /// Levenshtein distance: insertions, deletions and substitutions turning `a` into `b`.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
