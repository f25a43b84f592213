/// Checks a request head for the framing ambiguities that let one request hide another
/// ("request smuggling", RFC 9112 §6.3 and §11.2), for a missing or repeated `Host`, and for a
/// repeat of a field the responder reads once (``SingleFields``).
///
/// libmicrohttpd 0.9.75 accepts all of these: it uses the first of two `Content-Length`s, a
/// `Content-Length` next to `Transfer-Encoding: chunked`, keeps a field name with a blank
/// before its colon (`Transfer-Encoding : chunked`) as a different header, and appends a line
/// folded onto the one before it (obs-fold, RFC 9112 §5.2) to that line's field *name*,
/// dropping it from the value: `Content-Length:` + ` 44` on the next line becomes a field
/// `Content-Length44` with an empty value, and `Content-:5` + ` Length` a field `Content-Length`
/// of 5 that a proxy would not see. A folded name is copied to a block of its own, so a field
/// whose name does not sit right before its value in the request head (``isOneLine``) was
/// folded, whatever its name. Any of them is
/// answered 400 and the connection is closed, before a byte of the body is read. (A
/// `Content-Length` that is not a number never gets here: libmicrohttpd answers it itself.)
///
/// The fields are gathered in ``RequestHead``'s one pass over the head, and judged by
/// ``violation(isHTTP11:)``.
struct FramingFields {
    /// The fields that may appear once (the responder's ``SingleFields``).
    let singleFields: SingleFields
    /// Its known names' bits and whether it has other names, copied: a field is checked
    /// against them without retaining ``singleFields``.
    private let singleKnownNames: UInt32
    private let singleHasOtherNames: Bool
    /// The known single fields seen.
    private var singleKnownSeen: UInt32 = 0
    var singleFieldCount = SingleFieldCount()
    var contentLengthCount = 0
    /// The (first) `Content-Length`'s number.
    var contentLength: UInt64?
    var transferEncodings: [String] = []
    var hostCount = 0
    /// A field name that is not a token (never shown: a folded `Authorization` line puts the
    /// token into the name).
    var hasBadFieldName = false
    /// A field whose name a line folded onto it changed.
    var hasFoldedField = false

    init(singleFields: SingleFields) {
        self.singleFields = singleFields
        singleKnownNames = singleFields.knownNames
        singleHasOtherNames = singleFields.hasOtherNames
    }

    /// Takes one field; `knownBit` is its name's ``KnownFieldNames`` bit (0 for another name):
    /// the known names are told apart by it, without comparing their bytes again.
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, knownBit: UInt32, isOneLine: Bool) {
        // A known name (matched in any case of its letters) is a token already.
        if knownBit == 0, !Self.isToken(name) {
            hasBadFieldName = true
        }
        if !isOneLine {
            hasFoldedField = true
        }
        if knownBit != 0 {
            if knownBit == HTTPHeaders.KnownName.contentLength.bit {
                contentLengthCount += 1
                if contentLengthCount == 1 {
                    contentLength = RequestReader.contentLength(value)
                }
            } else if knownBit == HTTPHeaders.KnownName.host.bit {
                hostCount += 1
            } else if knownBit & singleKnownNames != 0 {
                if singleKnownSeen & knownBit == 0 {
                    singleKnownSeen |= knownBit
                } else if let single = singleFields.index(ofKnown: knownBit) {
                    singleFieldCount.add(single, isRepeat: true)
                }
            }
        } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
            transferEncodings.append(String(decoding: value, as: UTF8.self))
        } else if singleHasOtherNames, let single = singleFields.index(of: name) {
            singleFieldCount.add(single)
        }
    }

    /// Whether libmicrohttpd read the field from one line: in its request head the name, the NUL
    /// that replaced the colon, blanks, then the value. libmicrohttpd 0.9.75 copies a name that a
    /// folded line extends to a new block of the connection's pool, away from its value.
    static func isOneLine(name: UnsafeRawBufferPointer, value: UnsafeRawPointer?) -> Bool {
        guard let start = name.baseAddress, let value else { return true }
        let end = start + name.count
        let gap = value - end
        guard gap >= 1, gap <= 1_024 else { return false }
        let between = UnsafeRawBufferPointer(start: end, count: gap)
        return between[0] == 0 && between.dropFirst().allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    func violation(isHTTP11: Bool) -> RequestFailure? {
        if hasBadFieldName {
            return .malformedRequest("a header field name is not a token (no blanks before the colon, no line folded onto the one before it)")
        }
        if hasFoldedField {
            return .malformedRequest("a header line folded onto the one before it (obs-fold) is not accepted (RFC 9112 §5.2)")
        }
        if !transferEncodings.isEmpty, contentLengthCount > 0 {
            return .malformedRequest("a request may not carry both Content-Length and Transfer-Encoding")
        }
        if contentLengthCount > 1 {
            return .malformedRequest("the request carries more than one Content-Length")
        }
        if !transferEncodings.isEmpty {
            // Exactly as libmicrohttpd 0.9.75 reads it: the first field's value, compared whole
            // (it keeps what trails the value). Anything else it would read as a body of unknown
            // length, never ending: `chunked ` or `chunked,` went through, and no answer came.
            guard transferEncodings.count == 1, transferEncodings[0].lowercased() == "chunked" else {
                return .notImplemented(
                    "the only transfer coding accepted is chunked, alone in one Transfer-Encoding field with nothing around it (got \(transferEncodings.map { "\"\($0)\"" }.joined(separator: ", ")))"
                )
            }
        }
        if isHTTP11, hostCount != 1 {
            return .malformedRequest(hostCount == 0 ? "an HTTP/1.1 request must carry a Host header" : "the request carries more than one Host header")
        }
        if hostCount > 1 {
            return .malformedRequest("the request carries more than one Host header")
        }
        if let repeated = singleFieldCount.repeated {
            let name = singleFields.name(at: repeated)
            return .malformedRequest("the request carries more than one \(name) header field; this server reads \(name) from one field only, so send it once")
        }
        return nil
    }

    /// Whether `name` is an RFC 9110 token: one or more `tchar`s. A loop over the bytes with a
    /// table lookup each: through `allSatisfy` and two bit masks it cost about 20 instructions a
    /// byte, and every byte of every field name is checked.
    static func isToken(_ name: UnsafeRawBufferPointer) -> Bool {
        guard !name.isEmpty else { return false }
        let table = tokenTable.utf8Start
        for byte in name where table[Int(byte)] != UInt8(ascii: "1") {
            return false
        }
        return true
    }

    /// RFC 9110 `tchar`: letters, digits and ``tokenPunctuation``. `FramingFieldsTests` checks
    /// the table against the rule.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        tokenTable.utf8Start[Int(byte)] == UInt8(ascii: "1")
    }

    /// The punctuation `tchar` allows.
    static let tokenPunctuation = "!#$%&'*+-.^_`|~"
    /// `"1"` at the position of each `tchar` byte, `"0"` elsewhere: 256 characters, a literal (a
    /// `static let` array computed at first use costs a `swift_once` check per byte).
    private static var tokenTable: StaticString {
        """
        0000000000000000000000000000000001011111001101101111111111000000\
        0111111111111111111111111110001111111111111111111111111111101010\
        0000000000000000000000000000000000000000000000000000000000000000\
        0000000000000000000000000000000000000000000000000000000000000000
        """
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for (byte, wanted) in zip(bytes, expected) where byte | 0x20 != wanted {
            return false
        }
        return true
    }
}

private extension String {
    func trimmingCharacters(in blanks: String) -> String {
        let set = Set(blanks.unicodeScalars)
        let scalars = unicodeScalars.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed()
        return String(String.UnicodeScalarView(scalars))
    }
}
