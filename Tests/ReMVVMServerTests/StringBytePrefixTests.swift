@testable import ReMVVMServer
import Testing

/// `hasBytePrefix`: the access gate's check of a path's first bytes, exact (no case folding, no
/// Unicode equivalence).
@Suite struct StringBytePrefixTests {
    @Test(arguments: [
        ("/stores", true), ("/stores/s1/actions", true), ("/stores/", true),
        ("/store", false), ("/state", false), ("", false), ("/Stores", false), ("stores", false),
        ("/storés", false),
    ])
    func aPathStartsWithThePrefixOnlyWhenItsBytesDo(path: String, expected: Bool) {
        #expect(path.hasBytePrefix("/stores") == expected)
    }

    @Test func anEmptyPrefixStartsEveryString() {
        #expect("".hasBytePrefix(""))
        #expect("/state".hasBytePrefix(""))
    }
}
