import Testing
@testable import MicroHTTP

/// The router's literal paths are found exactly: byte for byte, whatever their length.
@Suite struct LiteralPathIndexTests {
    private func index(_ paths: [String]) -> LiteralPathIndex {
        var index = LiteralPathIndex()
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
        }
    }

    @Test func aPathOfTheSameLengthOrAnotherSpellingIsNotFound() {
        let index = index(["/state", "/caf\u{E9}"])
        for path in ["/stata", "/State", "/state/", "/stat", "/cafe\u{301}", "/states-and-more", "x"] {
            #expect(index.value(for: path) == nil, "\(path)")
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
