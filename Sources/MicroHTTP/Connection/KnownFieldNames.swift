/// The header field names most requests carry or the server looks up on every request.
///
/// - As clients spell them, they are handed out as constant strings instead of a new string per
///   field per request: making a `String` of a field's bytes validates and copies them (about 190
///   instructions; a `POST` from a client carries four or five fields). A name spelled otherwise
///   (another case, an unknown field) is made as before; either way the request's fields read the
///   same.
/// - In any case, each has a bit (``HTTPHeaders/KnownName``): a request's headers note which of
///   them it carries, so that looking one up that it does not carry costs a bit test instead of
///   a comparison with every field's name (most lookups of a request are of fields it lacks:
///   `Origin`, `Sec-Fetch-Site`, `Idempotency-Key`, `If-Match`…).
enum KnownFieldNames {
    /// What a field name is: its constant when spelled exactly so, and its bit (0: not known).
    struct Match {
        let constant: String?
        let bit: UInt32
    }

    /// The constant and bit of the name of `count` bytes at `bytes`. Literal by literal, so that
    /// each comparison is compiled for its literal (through a table of them it was not: about 200
    /// instructions more a request).
    static func match(_ bytes: UnsafeRawPointer, count: Int) -> Match {
        let name = UnsafeRawBufferPointer(start: bytes, count: count)
        let found: Match? = switch count {
        case 4: name.match("Host", .host)
        case 6: name.match("Accept", .accept) ?? name.match("Origin", .origin) ?? name.match("Cookie", .cookie)
        case 8: name.match("If-Match", .ifMatch)
        case 10: name.match("User-Agent", .userAgent) ?? name.match("Connection", .connection)
        case 12: name.match("Content-Type", .contentType)
        case 13: name.match("Authorization", .authorization) ?? name.match("If-None-Match", .ifNoneMatch)
            ?? name.match("Last-Event-ID", .lastEventID)
        case 14: name.match("Content-Length", .contentLength) ?? name.match("Sec-Fetch-Site", .secFetchSite)
        case 15: name.match("Accept-Encoding", .acceptEncoding) ?? name.match("Idempotency-Key", .idempotencyKey)
        case 29: name.match("Access-Control-Request-Method", .accessControlRequestMethod)
        default: nil
        }
        return found ?? Match(constant: nil, bit: 0)
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
    /// `known` when these bytes (of `literal`'s length) spell `literal`: with its text as the
    /// constant when exactly, with no constant in another case; nil otherwise.
    @inline(__always)
    func match(_ literal: StaticString, _ known: HTTPHeaders.KnownName) -> KnownFieldNames.Match? {
        if spells(literal) {
            return KnownFieldNames.Match(constant: known.text, bit: known.bit)
        }
        return spellsIgnoringCase(literal) ? KnownFieldNames.Match(constant: nil, bit: known.bit) : nil
    }

    /// Whether these bytes are exactly `literal`'s (of the same length: the caller's lookup).
    /// Eight bytes at a time, the last eight overlapping the ones before (every field name of a
    /// request is compared, most with one literal or two): byte by byte a 13-byte name cost
    /// about 60 instructions.
    func spells(_ literal: StaticString) -> Bool {
        let expected = UnsafeRawPointer(literal.utf8Start)
        guard let bytes = baseAddress, count >= 8 else {
            for index in indices where self[index] != expected.load(fromByteOffset: index, as: UInt8.self) {
                return false
            }
            return true
        }
        var offset = 0
        while offset + 8 < count {
            guard bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        return bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == expected.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// Whether these bytes are `literal`'s but for the case of ASCII letters.
    func spellsIgnoringCase(_ literal: StaticString) -> Bool {
        assumingMemoryBound(to: UInt8.self).equalsCaseInsensitively(
            UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        )
    }
}
