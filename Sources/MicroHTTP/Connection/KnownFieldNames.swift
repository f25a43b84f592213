/// The header field names most requests carry, as the clients spell them, handed out as constant
/// strings instead of a new string per field per request: making a `String` of a field's bytes
/// validates and copies them (about 190 instructions; a `POST` from a client carries four or
/// five fields). A name spelled otherwise (another case, an unknown field) is made as before;
/// either way the request's fields read the same. Every name here is at most 15 bytes: a small
/// string, a constant with no storage.
enum KnownFieldNames {
    /// The constant for the name of `count` bytes at `bytes`, if it is one of the known names
    /// spelled exactly so.
    static func name(_ bytes: UnsafeRawPointer, count: Int) -> String? {
        let name = UnsafeRawBufferPointer(start: bytes, count: count)
        switch count {
        case 4:
            return name.spells("Host") ? "Host" : nil
        case 6:
            if name.spells("Accept") { return "Accept" }
            if name.spells("Origin") { return "Origin" }
            return name.spells("Cookie") ? "Cookie" : nil
        case 8:
            return name.spells("If-Match") ? "If-Match" : nil
        case 10:
            if name.spells("User-Agent") { return "User-Agent" }
            return name.spells("Connection") ? "Connection" : nil
        case 12:
            return name.spells("Content-Type") ? "Content-Type" : nil
        case 13:
            if name.spells("Authorization") { return "Authorization" }
            if name.spells("If-None-Match") { return "If-None-Match" }
            return name.spells("Last-Event-ID") ? "Last-Event-ID" : nil
        case 14:
            return name.spells("Content-Length") ? "Content-Length" : nil
        case 15:
            if name.spells("Accept-Encoding") { return "Accept-Encoding" }
            return name.spells("Idempotency-Key") ? "Idempotency-Key" : nil
        default:
            return nil
        }
    }

    /// The constant for the value of `count` bytes at `bytes` of the field `name` (a constant of
    /// ``name(_:count:)``), if it is the one value clients send so often: `application/json` as
    /// a `Content-Type` (16 bytes: a literal, stored once, where a new one is allocated).
    static func value(_ bytes: UnsafeRawPointer, count: Int, of name: String) -> String? {
        guard count == 16, name == "Content-Type",
              UnsafeRawBufferPointer(start: bytes, count: count).spells("application/json") else {
            return nil
        }
        return "application/json"
    }
}

private extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly `literal`'s (of the same length: the caller's `switch`).
    func spells(_ literal: StaticString) -> Bool {
        let expected = literal.utf8Start
        for index in indices where self[index] != expected[index] {
            return false
        }
        return true
    }
}
