@testable import MicroHTTP
import Testing

/// ``isUTF8(_:)``, which every request's decoded path and query pass through: its ASCII prefix is
/// read 8 bytes at a time, so each case is tried at every offset around those words' edges.
struct UTF8CheckTests {
    private func check(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(isUTF8)
    }

    /// What the standard library's validating initializer says of the same bytes: the reference.
    private func reference(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    @Test func emptyAndPlainASCIIAreUTF8() {
        #expect(check([]))
        #expect(check(Array("/viewmodels/counter".utf8)))
        #expect(check(Array(repeating: 0x7F, count: 33)))
    }

    @Test(arguments: [
        [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBD],  // é € 😀 U+FFFD
        [0xFF], [0xC3], [0xE9], [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],  // not UTF-8
        [0xE2, 0x82], [0xF0, 0x9F, 0x98],  // cut short
    ] as [[UInt8]])
    func aSequenceIsJudgedAlikeAtEveryOffset(sequence: [UInt8]) {
        for before in 0...17 {
            for after in [0, 1, 7, 8, 9] {
                let bytes = Array(repeating: UInt8(ascii: "a"), count: before) + sequence + Array(repeating: UInt8(ascii: "b"), count: after)
                #expect(check(bytes) == reference(bytes), "\(before) ASCII bytes, then \(sequence), then \(after)")
            }
        }
    }

    @Test func theVerdictsAreTheExpectedOnes() {
        #expect(check(Array("/caf\u{E9}".utf8)))
        #expect(!check(Array("/abcdefgh".utf8) + [0xE9]))
        #expect(!check(Array("/abcdefg".utf8) + [0xFF] + Array("abcdefgh".utf8)))
    }
}
