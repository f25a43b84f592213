internal import CPostgres

extension PostgresConnection {
    /// Why libpq cannot read `conninfo` as a connection string (password redacted), or nil when it
    /// can: a malformed one fails on every attempt, so it is a setting to fix, not an outage.
    static func connectionStringProblem(_ conninfo: String) -> String? {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            defer { if let message { PQfreemem(message) } }
            return redacting(oneLine(message.map { String(cString: $0) } ?? "it cannot be parsed"), of: conninfo)
        }
        PQconninfoFree(options)
        return nil
    }

    /// `message` (libpq's) with the password of `conninfo` replaced by `***`: libpq quotes a
    /// connection string it cannot parse, or the part of it that is wrong (an unencoded `%` in a
    /// password), and its messages reach `/healthz` (open even with access tokens), problem
    /// details and logs. The password is what `conninfo` holds between `user:` and `@` in the
    /// URL form, or after `password=` in the `key=value` form.
    static func redacting(_ message: String, of conninfo: String) -> String {
        guard let password = password(in: conninfo), !password.isEmpty else { return message }
        return message.replacingEvery(password, with: "***")
    }

    /// The password written in `conninfo`, if any (even in a string libpq cannot parse).
    static func password(in conninfo: String) -> String? {
        let text = Substring(conninfo)
        for scheme in ["postgresql://", "postgres://"] where text.hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            guard let at = authority.lastIndex(of: "@") else { return nil }
            let userinfo = authority[..<at]
            guard let colon = userinfo.firstIndex(of: ":") else { return nil }
            return String(userinfo[userinfo.index(after: colon)...])
        }
        // key=value pairs: password=secret or password='se cret' (blanks allowed around "=").
        var rest = text
        while let range = rest.firstRange(of: "password") {
            let before = rest[..<range.lowerBound].last
            var after = rest[range.upperBound...].drop { $0 == " " }
            rest = rest[range.upperBound...]
            guard before == nil || before == " " || before == "\t", after.first == "=" else { continue }
            after = after.dropFirst().drop { $0 == " " }
            if after.first == "'" {
                return String(after.dropFirst().prefix { $0 != "'" })
            }
            return String(after.prefix { $0 != " " && $0 != "\t" })
        }
        return nil
    }

    /// libpq's message on one line: its continuation lines (`\n\tIs the server running…`,
    /// `\nLINE 1: …`) would otherwise become log lines without a time or a level.
    static func oneLine(_ message: String) -> String {
        var line = ""
        var pendingBreak = false
        for character in message {
            if character.isNewline {
                pendingBreak = true
            } else if pendingBreak, character == " " || character == "\t" {
                continue
            } else {
                if pendingBreak, !line.isEmpty { line += " " }
                pendingBreak = false
                line.append(character)
            }
        }
        return line
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
