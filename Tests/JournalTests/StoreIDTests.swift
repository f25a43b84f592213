import Journal
import Testing

/// A store id's rules, read from a `String` in place or from any other `StringProtocol`.
@Suite struct StoreIDTests {
    /// The rule `make` finds `text` breaking (nil: none, and the id is `text`).
    private func rule(_ text: String, _ make: (String) throws(StoreIDError) -> StoreID) -> StoreIDError? {
        do {
            let id = try make(text)
            #expect(id.rawValue == text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyRuleIsTheSameFromAStringAndFromASubstring() {
        let cases: [(String, StoreIDError?)] = [
            ("room-1", nil), ("R.o_o~m-9", nil), ("0", nil), (String(repeating: "a", count: 128), nil),
            ("", .empty), ("-room", .badStart), ("_a", .badStart), ("room/1", .notAllowed), ("room 1", .notAllowed),
            ("räum", .notAllowed), (String(repeating: "a", count: 129), .tooLong(129)),
            // Bytes count, not characters: 65 characters, 129 bytes.
            ("a" + String(repeating: "ä", count: 64), .tooLong(129)),
        ]
        for (text, expected) in cases {
            #expect(rule(text) { text throws(StoreIDError) in try StoreID(text) } == expected, "\(text)")
            // A Substring: the generic init.
            #expect(rule(text) { text throws(StoreIDError) in try StoreID(("<" + text + ">").dropFirst().dropLast()) } == expected, "\(text)")
        }
    }
}
