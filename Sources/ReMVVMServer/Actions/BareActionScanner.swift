/// Recognizes the commonest `POST /actions` body, an action without payload — `{"type":"increase"}`,
/// blanks allowed between tokens — so it can skip the JSON decoder.
///
/// Strict on purpose: anything else (a payload, escapes in the name, another key, trailing bytes)
/// returns nil, and the body goes through the full decoder, which gives the same result for bodies
/// this accepts. The name is returned as written.
enum BareActionScanner {
    /// The wire name if `body` is exactly `{"type":"<name>"}`.
    static func typeName(in body: [UInt8]) -> String? {
        body.withUnsafeBufferPointer { bytes in
            typeNameRange(in: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
    }

    /// Where the wire name is in `bytes` (without its quotes) if they are exactly
    /// `{"type":"<name>"}`: the name can be looked up without making a string of it.
    static func typeNameRange(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var index = 0
        func skipBlanks() {
            while index < bytes.count, StrictJSONValidator.isWhitespace(bytes[index]) { index += 1 }
        }
        func expect(_ literal: StaticString) -> Bool {
            let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            guard bytes.count - index >= text.count else { return false }
            for offset in 0..<text.count where bytes[index + offset] != text[offset] {
                return false
            }
            index += text.count
            return true
        }
        skipBlanks()
        guard expect("{") else { return nil }
        skipBlanks()
        guard expect("\"type\"") else { return nil }
        skipBlanks()
        guard expect(":") else { return nil }
        skipBlanks()
        guard expect("\"") else { return nil }
        let nameStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            // Escapes, control characters and non-ASCII go the full way (decoding, validation).
            guard bytes[index] >= 0x20, bytes[index] < 0x7F, bytes[index] != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        guard index < bytes.count, index > nameStart else { return nil }
        let name = nameStart..<index
        index += 1
        skipBlanks()
        guard expect("}") else { return nil }
        skipBlanks()
        return index == bytes.count ? name : nil
    }
}
