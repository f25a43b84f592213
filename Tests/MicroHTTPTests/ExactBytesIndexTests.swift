import Testing
@testable import MicroHTTP

/// Strings (the router's literal paths, action names) are found exactly: byte for byte, whatever
/// their length, from a string or from bytes.
@Suite struct ExactBytesIndexTests {
    private func index(_ paths: [String]) -> ExactBytesIndex {
        var index = ExactBytesIndex()
        for (position, path) in paths.enumerated() {
            index.set(path, to: position)
        }
        return index
    }

    @Test func eachPathFindsItsOwnValue() {
        let paths = ["/", "/state", "/stats", "/actions", "/events", "/metrics", "/viewmodels", "/caf\u{E9}", ""]
        let index = index(paths)
        for (position, path) in paths.enumerated() {
            #expect(index.value(for: path) == position, "\(path)")
            #expect(Array(path.utf8).withUnsafeBufferPointer { index.value(forBytes: $0) } == position, "\(path) as bytes")
        }
    }

    @Test func aPathOfTheSameLengthOrAnotherSpellingIsNotFound() {
        let index = index(["/state", "/caf\u{E9}"])
        for path in ["/stata", "/State", "/state/", "/stat", "/cafe\u{301}", "/states-and-more", "x"] {
            #expect(index.value(for: path) == nil, "\(path)")
            #expect(Array(path.utf8).withUnsafeBufferPointer { index.value(forBytes: $0) } == nil, "\(path) as bytes")
        }
    }

    @Test func addingAPathAgainReplacesItsValue() {
        var index = index(["/state"])
        index.set("/state", to: 7)
        #expect(index.value(for: "/state") == 7)
    }

    @Test func aLongPathFromTheHeapIsComparedByItsBytes() {
        let long = "/stores/" + String(repeating: "a", count: 40) + "/actions"
        let index = index([long])
        #expect(index.value(for: String(long.utf8.map { Character(UnicodeScalar($0)) })) == 0)
        #expect(index.value(for: String(long.dropLast()) + "S") == nil)
    }
}
