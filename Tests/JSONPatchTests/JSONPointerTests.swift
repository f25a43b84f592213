import JSONPatch
import Testing

/// `JSONPointer`: RFC 6901 parsing, escaping and evaluation.
@Suite struct JSONPointerTests {
    @Test func tokensAreUnescapedTildeOneBeforeTildeZero() throws {
        #expect(try JSONPointer("/a~1b/m~0n").tokens == ["a/b", "m~n"])
        #expect(try JSONPointer("/~01").tokens == ["~1"], "~01 is '~' then '1', never '/'")
        #expect(try JSONPointer("/~10").tokens == ["/0"])
    }

    @Test func theTextFormEscapesTildeAndSlash() {
        #expect(JSONPointer(tokens: ["a/b", "m~n", "~1", ""]).description == "/a~1b/m~0n/~01/")
        #expect(JSONPointer.root.description == "")
    }

    @Test(arguments: ["", "/", "//", "/a~1b", "/~0~1~0", "/é/😀/0", "/ spaces /x"])
    func parsingTheTextFormGivesItBack(text: String) throws {
        #expect(try JSONPointer(text).description == text)
    }

    @Test func emptyIsTheRootAndSlashIsTheEmptyName() throws {
        #expect(try JSONPointer("").isRoot)
        #expect(try JSONPointer("/").tokens == [""])
        #expect(try JSONPointer("//").tokens == ["", ""])
    }

    @Test(arguments: ["a", "a/b", "/~", "/~2", "/a~", "#/a"])
    func malformedPointersAreRefused(text: String) {
        do {
            _ = try JSONPointer(text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.code == .malformedPointer)
        }
    }

    /// RFC 6901 §5.
    @Test func theExamplesOfTheRFCEvaluateAsItSays() throws {
        let document = try JSON(parsing: #"""
            {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
            """#)
        let expectations: [(String, JSON)] = [
            ("", document), ("/foo", ["bar", "baz"]), ("/foo/0", "bar"), ("/", 0), ("/a~1b", 1), ("/c%d", 2),
            ("/e^f", 3), ("/g|h", 4), ("/i\\j", 5), ("/k\"l", 6), ("/ ", 7), ("/m~0n", 8),
        ]
        for (pointer, expected) in expectations {
            #expect(try document.value(at: JSONPointer(pointer)) == expected, "\(pointer)")
        }
    }

    @Test func evaluationFailsForMissingPathsAndBadIndexes() throws {
        let document: JSON = ["a": [1, 2], "s": "text"]
        for (pointer, code) in [
            ("/b", JSONPatchError.Code.pathNotFound), ("/a/2", .pathNotFound), ("/a/-", .invalidIndex),
            ("/a/01", .invalidIndex), ("/a/x", .invalidIndex), ("/s/0", .pathNotFound), ("/a/0/0", .pathNotFound),
            ("/a/99999999999999999999999", .pathNotFound),
        ] {
            do {
                _ = try document.value(at: JSONPointer(pointer))
                Issue.record("\(pointer) was found")
            } catch {
                #expect(error.code == code, "\(pointer): \(error)")
            }
        }
    }

    @Test func aProperPrefixPointsAtAnAncestor() throws {
        #expect(try JSONPointer("/a").isProperPrefix(of: JSONPointer("/a/b")))
        #expect(try !JSONPointer("/a").isProperPrefix(of: JSONPointer("/a")))
        #expect(try !JSONPointer("/a").isProperPrefix(of: JSONPointer("/ab")))
        #expect(JSONPointer.root.isProperPrefix(of: try JSONPointer("/")))
    }
}
