import Configuration
import JSONPatch

/// The config file's contents: one JSON object whose members are settings (``ServerSettings/Key``).
///
/// Read like `JSONSnapshot`, which it wraps, after a stricter check of its own, so that a mistake
/// in the file stops the start instead of leaving a default in force unnoticed: the text must be
/// exactly JSON (RFC 8259: no comments, no trailing commas, no member twice; a leading UTF-8 BOM
/// is skipped), every member must be a setting (a misspelt one is named with the setting it most
/// likely meant: `journalSynch` → `journalSync`), and every value must be of the setting's kind
/// (``Setting/Kind``): a whole number, text, either, `true`/`false`, or a list — never `null` or
/// an object (`JSONSnapshot` alone would read `true` as the number 1 and `2` as `true`, and skip
/// a value it cannot read, leaving the default in force).
struct SettingsFileSnapshot: FileConfigSnapshot {
    /// Those of `JSONSnapshot`, which reads the values.
    typealias ParsingOptions = JSONSnapshot.ParsingOptions

    private let json: JSONSnapshot

    var providerName: String { json.providerName }
    var description: String { json.description }
    var debugDescription: String { json.debugDescription }

    /// Checks the file's `data` (``check(_:)``), then reads it as `JSONSnapshot` does.
    init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
        try Self.check(data.withUnsafeBytes { Array($0) })
        json = try JSONSnapshot(data: data, providerName: providerName, parsingOptions: parsingOptions)
    }

    /// The value of `key`, as `JSONSnapshot` reads it.
    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try json.value(forKey: key, type: type)
    }

    /// Throws ``SettingsFileError`` listing what is wrong with the config file `bytes`.
    static func check(_ bytes: [UInt8]) throws(SettingsFileError) {
        let document: JSON
        do {
            let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
            document = try JSON(parsing: hasBOM ? bytes.dropFirst(3) : bytes[...])
        } catch {
            throw SettingsFileError(problems: ["it is not JSON: \(error.message)"], unknownNames: [])
        }
        guard case .object(let object) = document else {
            throw SettingsFileError(problems: ["it holds \(kind(of: document)), not an object of settings"], unknownNames: [])
        }
        var problems: [String] = []
        var unknown: [String] = []
        for member in object.members {
            guard let key = ServerSettings.Key(rawValue: member.key) else {
                unknown.append(member.key)
                continue
            }
            if let problem = mismatch(member.value, for: key) {
                problems.append("\(key.rawValue) \(problem)")
            }
        }
        if !problems.isEmpty || !unknown.isEmpty {
            throw SettingsFileError(problems: problems, unknownNames: unknown.sorted())
        }
    }

    /// What is wrong with `value` for the setting `key`, or nil when it is of the setting's kind
    /// (``Setting/Kind``; whether it is a valid value is for the setting's reader to say).
    private static func mismatch(_ value: JSON, for key: ServerSettings.Key) -> String? {
        guard let kind = ServerSettings.table.first(where: { $0.key == key })?.kind else { return nil }
        switch (kind, value) {
        case (.wholeNumber, .number(let literal)), (.textOrWholeNumber, .number(let literal)):
            return Int(literal) == nil ? "holds \(key.isSecret ? "a number" : "the number \(literal)"); expected a whole number" : nil
        case (.text, .string), (.textOrWholeNumber, .string), (.list, .string), (.switch, .bool):
            return nil
        case (.list, .array(let items)):
            return items.allSatisfy { if case .string = $0 { true } else { false } } ? nil : "holds an array that is not all text"
        default:
            // A secret's value is never shown, not even a number given where text belongs.
            let held = key.isSecret ? "a value of the wrong kind" : Self.kind(of: value)
            return "holds \(held); expected " + expected(kind)
        }
    }

    /// What a setting of `kind` takes, for a person.
    private static func expected(_ kind: Setting.Kind) -> String {
        switch kind {
        case .wholeNumber: "a whole number"
        case .text: "text"
        case .textOrWholeNumber: "text or a whole number"
        case .switch: "true or false"
        case .list: "text or an array of text"
        }
    }

    /// A JSON value's kind, for a person.
    private static func kind(of value: JSON) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let literal): "the number \(literal)"
        case .string: "text"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// What is wrong with a config file: values of the wrong kind, members that are no setting.
struct SettingsFileError: Error, CustomStringConvertible {
    /// Each problem but unknown members, in the file's order.
    let problems: [String]
    /// The members that are no setting, sorted.
    let unknownNames: [String]

    /// The problems, then the unknown members with the setting each most likely means.
    var description: String {
        var parts = problems
        if !unknownNames.isEmpty {
            let each = unknownNames.map { name in
                ServerSettings.Key.closest(to: name).map { "\"\(name)\" (did you mean \($0.rawValue)?)" } ?? "\"\(name)\""
            }
            let noun = unknownNames.count == 1 ? "is no setting" : "are no settings"
            parts.append("\(each.joined(separator: ", ")) \(noun); the settings are "
                + ServerSettings.Key.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
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
