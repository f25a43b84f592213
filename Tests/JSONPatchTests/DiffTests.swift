import JSONPatch
import Testing

/// `diff(_:_:)`: small patches for the shapes a state takes, exact values everywhere.
@Suite struct DiffTests {
    private func json(_ text: String) throws -> JSON {
        try JSON(parsing: text)
    }

    /// The diff of two texts, as JSON text, after checking that it turns the first into the second.
    private func patchText(_ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let before = try json(old)
        let after = try json(new)
        let patch = diff(before, after)
        let applied = try apply(patch, to: before)
        #expect(applied.canonicalBytes == after.canonicalBytes, sourceLocation: sourceLocation)
        return String(decoding: patch.canonicalBytes, as: UTF8.self)
    }

    @Test func equalValuesGiveAnEmptyPatch() throws {
        #expect(try patchText(#"{"a":[1,{"b":null}]}"#, #"{"a":[1,{"b":null}]}"#) == "[]")
    }

    @Test func theRootIsReplacedWhenItsKindChanges() throws {
        #expect(try patchText(#"{"a":1}"#, "[1]") == #"[{"op":"replace","path":"","value":[1]}]"#)
        #expect(try patchText("1", "2") == #"[{"op":"replace","path":"","value":2}]"#)
        #expect(try patchText("null", #"{"a":1}"#) == #"[{"op":"replace","path":"","value":{"a":1}}]"#)
    }

    @Test func aMemberChangingKindIsReplaced() throws {
        #expect(try patchText(#"{"a":{"b":1},"c":2}"#, #"{"a":[1],"c":2}"#) == #"[{"op":"replace","path":"/a","value":[1]}]"#)
        #expect(try patchText(#"{"a":"1"}"#, #"{"a":1}"#) == #"[{"op":"replace","path":"/a","value":1}]"#)
    }

    @Test func membersAreAddedAndRemoved() throws {
        #expect(try patchText(#"{"a":1,"b":2}"#, #"{"b":2,"c":3}"#)
            == #"[{"op":"remove","path":"/a"},{"op":"add","path":"/c","value":3}]"#)
    }

    @Test func oneChangedItemOfALargeArrayGivesOneSmallOperation() throws {
        let items: [JSON] = (0..<10_000).map { index -> JSON in
            ["id": .number(String(index)), "title": .string("Todo item number \(index)"), "done": false]
        }
        var changed = items
        changed[4242] = ["id": 4242, "title": "Todo item number 4242", "done": true]
        let patch = diff(["items": .array(items)], ["items": .array(changed)])
        let expected: [PatchOperation] = [.replace(path: try JSONPointer("/items/4242/done"), value: true)]
        #expect(patch == expected)
    }

    @Test func arraysGrowAndShrinkAtTheEndTheStartAndTheMiddle() throws {
        #expect(try patchText("[1,2]", "[1,2,3,4]") == #"[{"op":"add","path":"/2","value":3},{"op":"add","path":"/3","value":4}]"#)
        #expect(try patchText("[1,2,3,4]", "[1,2]") == #"[{"op":"remove","path":"/2"},{"op":"remove","path":"/2"}]"#)
        #expect(try patchText("[2,3]", "[1,2,3]") == #"[{"op":"add","path":"/0","value":1}]"#)
        #expect(try patchText("[1,2,3]", "[2,3]") == #"[{"op":"remove","path":"/0"}]"#)
        #expect(try patchText("[1,2,3]", "[1,9,8,3]") == #"[{"op":"replace","path":"/1","value":9},{"op":"add","path":"/2","value":8}]"#)
        #expect(try patchText("[1,9,8,7,3]", "[1,5,3]") == #"[{"op":"replace","path":"/1","value":5},{"op":"remove","path":"/2"},{"op":"remove","path":"/2"}]"#)
    }

    @Test func anArrayEmptiedOrFilledIsReplacedWhole() throws {
        #expect(try patchText(#"{"a":[1,2,3]}"#, #"{"a":[]}"#) == #"[{"op":"replace","path":"/a","value":[]}]"#)
        #expect(try patchText(#"{"a":[]}"#, #"{"a":[1,2]}"#) == #"[{"op":"replace","path":"/a","value":[1,2]}]"#)
    }

    @Test func repeatedItemsStillGiveACorrectPatch() throws {
        _ = try patchText("[1,1,1,1]", "[1,1]")
        _ = try patchText("[1,1]", "[1,1,1,1,1]")
        _ = try patchText("[1,2,1,2]", "[2,1,2,1]")
        _ = try patchText("[[1],[1],[2]]", "[[1],[2],[2]]")
    }

    @Test func memberNamesWithSlashAndTildeAreEscapedInPaths() throws {
        #expect(try patchText(#"{"a/b":{"m~n":1},"~1":0}"#, #"{"a/b":{"m~n":2},"~1":0,"/":3}"#)
            == #"[{"op":"add","path":"/~1","value":3},{"op":"replace","path":"/a~1b/m~0n","value":2}]"#)
        #expect(try patchText(#"{"":1}"#, #"{"":2}"#) == #"[{"op":"replace","path":"/","value":2}]"#)
    }

    @Test func unicodeNamesAndValuesAreKeptExactly() throws {
        #expect(try patchText("{\"é\":\"e\u{301}\"}", "{\"é\":\"é\"}") == #"[{"op":"replace","path":"/é","value":"é"}]"#)
        #expect(try patchText(#"{"😀":"\u0000"}"#, #"{"😀":"\n\u001f"}"#) == #"[{"op":"replace","path":"/😀","value":"\n\u001f"}]"#)
    }

    @Test func aDiffWithALimitStopsOnceItWouldNeedMoreOperations() throws {
        let old = try json("[1,2,3,4,5]")
        let new = try json("[9,8,7,6,5]")
        #expect(diff(old, new, maxOperations: 3) == nil)
        #expect(diff(old, new, maxOperations: 4) == diff(old, new))
        #expect(diff(old, old, maxOperations: 0) == [])
        #expect(diff(try json(#"{"a":1}"#), try json(#"{"b":1}"#), maxOperations: 1) == nil)
    }

    @Test func numbersAreComparedAndCarriedVerbatim() throws {
        #expect(try patchText(#"{"a":1,"b":1e400,"c":-0}"#, #"{"a":1.0,"b":1e400,"c":0}"#)
            == #"[{"op":"replace","path":"/a","value":1.0},{"op":"replace","path":"/c","value":0}]"#)
        #expect(try patchText("[1e400]", "[-1E-400]") == #"[{"op":"replace","path":"/0","value":-1E-400}]"#)
    }
}
