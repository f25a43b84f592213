internal import CPostgres

/// Where a libpq connection string holds a password, and how to keep it out of a message.
///
/// libpq quotes a connection string it cannot read, or the part of it that is wrong, and its
/// messages reach `/healthz` (open even with access tokens), problem details and logs. A password
/// libpq misreads shows up in pieces: `postgresql://u:s3cr/et@host` is read as host `u` and port
/// `s3cr` ("invalid integer value "s3cr" for connection option "port""). So a message loses both
/// every password written in the string and every quoted part of it that libpq can only have
/// taken from where a password is written.
struct ConnectionStringSecrets {
    /// The texts where `conninfo` may hold a password, as written and as libpq decodes them.
    let secrets: [String]
    /// `conninfo` as written and percent-decoded, each with the ranges that may hold a password.
    private let sources: [(text: String, sensitive: [Range<String.Index>])]

    /// The password places of `conninfo`: in the URL form the user information after its first
    /// `:` up to the last `@`, and every `password=` query parameter; in the `key=value` form the
    /// value of every `password` keyword (quoted or not, with libpq's backslash escapes). Both are
    /// read generously: a string libpq cannot parse still has its password found.
    init(_ conninfo: String) {
        let decoded = Self.percentDecoded(conninfo)
        let rawRanges = Self.sensitiveRanges(in: conninfo)
        let decodedRanges = Self.sensitiveRanges(in: decoded)
        var secrets = Set<String>()
        for range in rawRanges {
            let text = String(conninfo[range])
            secrets.insert(text)
            secrets.insert(Self.isURL(conninfo) ? Self.percentDecoded(text) : Self.unescaped(text))
        }
        for range in decodedRanges { secrets.insert(String(decoded[range])) }
        if let parsed = Self.parsedPassword(conninfo) { secrets.insert(parsed) }
        secrets.remove("")
        self.secrets = secrets.sorted { $0.count > $1.count }
        sources = [(conninfo, rawRanges), (decoded, decodedRanges)]
    }

    /// `message` with every password replaced by `***`, and then every quoted part (`"…"`) that
    /// occurs in the connection string only where a password may be.
    func redact(_ message: String) -> String {
        var result = message
        for secret in secrets { result = result.replacingEvery(secret, with: "***") }
        return redactingQuotedParts(of: result)
    }

    private func redactingQuotedParts(of message: String) -> String {
        var result = ""
        var rest = Substring(message)
        while let open = rest.firstIndex(of: "\"") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else { break }
            let quoted = rest[afterOpen..<close]
            result += rest[...open]
            result += comesOnlyFromAPassword(quoted) ? "***" : quoted
            result += "\""
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Whether `part` occurs in the connection string (as written or decoded), and every time
    /// overlapping a place that may hold a password.
    private func comesOnlyFromAPassword(_ part: Substring) -> Bool {
        guard !part.isEmpty else { return false }
        for source in sources where !source.sensitive.isEmpty {
            let occurrences = source.text.ranges(of: part)
            if !occurrences.isEmpty, occurrences.allSatisfy({ occurrence in
                source.sensitive.contains { $0.overlaps(occurrence) }
            }) {
                return true
            }
        }
        return false
    }

    private static func isURL(_ conninfo: String) -> Bool {
        conninfo.hasPrefix("postgresql://") || conninfo.hasPrefix("postgres://")
    }

    private static func sensitiveRanges(in conninfo: String) -> [Range<String.Index>] {
        isURL(conninfo) ? urlRanges(in: conninfo) : keywordRanges(in: conninfo)
    }

    /// libpq reads user information up to the first `@` or `/`; a password holding a `/` or `@`
    /// is misread, so everything up to the last `@` before the query counts (an `@` in the query,
    /// `?user=admin@server`, is no end of a password).
    private static func urlRanges(in conninfo: String) -> [Range<String.Index>] {
        let rest = conninfo.drop { $0 != "/" }.dropFirst(2)  // after "postgresql://"
        var ranges: [Range<String.Index>] = []
        let beforeQuery = rest[..<(rest.firstIndex(of: "?") ?? rest.endIndex)]
        if let at = beforeQuery.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            ranges.append(rest.index(after: colon)..<at)
        }
        for parameter in rest.ranges(of: "password=") {
            guard parameter.lowerBound > rest.startIndex else { continue }
            let before = rest[rest.index(before: parameter.lowerBound)]
            guard before == "?" || before == "&" else { continue }
            let value = rest[parameter.upperBound...]
            ranges.append(value.startIndex..<(value.firstIndex(of: "&") ?? value.endIndex))
        }
        return ranges
    }

    /// `password = value` pairs, the value quoted (`'…'`) or not, backslash escaping any
    /// character in both, as libpq reads them.
    private static func keywordRanges(in conninfo: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        for keyword in conninfo.ranges(of: "password") {
            if keyword.lowerBound > conninfo.startIndex,
               !conninfo[conninfo.index(before: keyword.lowerBound)].isWhitespace { continue }
            var value = conninfo[keyword.upperBound...].drop { $0.isWhitespace }
            guard value.first == "=" else { continue }
            value = value.dropFirst().drop { $0.isWhitespace }
            let quoted = value.first == "'"
            if quoted { value = value.dropFirst() }
            var end = value.startIndex
            while end < value.endIndex {
                let character = value[end]
                if character == "\\" {
                    end = value.index(after: end)
                    if end < value.endIndex { end = value.index(after: end) }
                    continue
                }
                if quoted ? character == "'" : character.isWhitespace { break }
                end = value.index(after: end)
            }
            ranges.append(value.startIndex..<end)
        }
        return ranges
    }

    /// `text` with its `%XX` escapes decoded (others kept), as libpq decodes a URL's parts.
    private static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = Hex.value(utf8[index + 1]), let low = Hex.value(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` with libpq's backslash escapes undone.
    private static func unescaped(_ text: String) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if !escaping, character == "\\" {
                escaping = true
                continue
            }
            escaping = false
            result.append(character)
        }
        return result
    }

    /// The password as libpq reads it from `conninfo`, when it can.
    private static func parsedPassword(_ conninfo: String) -> String? {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            if let message { PQfreemem(message) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == "password" { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }
}

extension String {
    /// The string with every occurrence of `target` replaced by `replacement`.
    fileprivate func replacingEvery(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
