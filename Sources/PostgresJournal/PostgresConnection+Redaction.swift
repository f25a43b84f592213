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

    /// `message` (libpq's) without the password of `conninfo` (see `ConnectionStringSecrets`).
    static func redacting(_ message: String, of conninfo: String) -> String {
        ConnectionStringSecrets(conninfo).redact(message)
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
