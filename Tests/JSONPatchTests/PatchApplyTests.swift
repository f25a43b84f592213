import JSONPatch
import Testing

/// `apply(_:to:)`: every operation of RFC 6902, its examples (Appendix A) and its errors.
@Suite struct PatchApplyTests {
    /// Applies a patch written as JSON text to a document written as JSON text.
    private func applying(_ patch: String, to document: String) throws -> JSON {
        try apply([PatchOperation](json: JSON(parsing: patch)), to: JSON(parsing: document))
    }

    private func expectFailure(_ patch: String, on document: String, code: JSONPatchError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let result = try applying(patch, to: document)
            Issue.record("applied, giving \(result.canonicalText)", sourceLocation: sourceLocation)
        } catch let error as JSONPatchError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [
        // A.1 … A.10, A.16
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#, #"{"baz":"qux","foo":"bar"}"#),
        (#"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#, #"{"foo":["bar","qux","baz"]}"#),
        (#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#, #"{"foo":"bar"}"#),
        (#"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#, #"{"foo":["bar","baz"]}"#),
        (#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#, #"{"baz":"boo","foo":"bar"}"#),
        (#"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#, #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
         #"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#),
        (#"{"foo":["all","grass","cows","eat"]}"#, #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#, #"{"foo":["all","cows","eat","grass"]}"#),
        (#"{"baz":"qux","foo":["a",2,"c"]}"#, #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#,
         #"{"baz":"qux","foo":["a",2,"c"]}"#),
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#, #"{"child":{"grandchild":{}},"foo":"bar"}"#),
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux","xyz":123}]"#, #"{"baz":"qux","foo":"bar"}"#),
        (#"{"foo":["bar"]}"#, #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#, #"{"foo":["bar",["abc","def"]]}"#),
        // A.14: ~ escaping, A.11-ish: test with numbers by value
        (#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10}]"#, #"{"/":9,"~1":10}"#),
        (#"{"n":1.0}"#, #"[{"op":"test","path":"/n","value":1}]"#, #"{"n":1.0}"#),
    ])
    func theExamplesOfTheRFCApply(document: String, patch: String, expected: String) throws {
        #expect(try applying(patch, to: document).canonicalText == expected)
    }

    @Test func addAtTheRootReplacesTheDocument() throws {
        #expect(try applying(#"[{"op":"add","path":"","value":[1]}]"#, to: #"{"a":1}"#).canonicalText == "[1]")
    }

    @Test func addOfAnExistingMemberReplacesIt() throws {
        #expect(try applying(#"[{"op":"add","path":"/a","value":2}]"#, to: #"{"a":1}"#).canonicalText == #"{"a":2}"#)
    }

    @Test func addAtTheCountAppends() throws {
        #expect(try applying(#"[{"op":"add","path":"/2","value":3}]"#, to: "[1,2]").canonicalText == "[1,2,3]")
    }

    @Test func addFailsWhereTheParentIsMissingOrTheIndexIsBad() {
        expectFailure(#"[{"op":"add","path":"/baz/bat","value":"qux"}]"#, on: #"{"foo":"bar"}"#, code: .pathNotFound)  // A.12
        expectFailure(#"[{"op":"add","path":"/3","value":0}]"#, on: "[1,2]", code: .pathNotFound)
        expectFailure(#"[{"op":"add","path":"/01","value":0}]"#, on: "[1,2]", code: .invalidIndex)
        expectFailure(#"[{"op":"add","path":"/-1","value":0}]"#, on: "[1,2]", code: .invalidIndex)
        expectFailure(#"[{"op":"add","path":"/a/b","value":0}]"#, on: #"{"a":5}"#, code: .pathNotFound)
    }

    @Test func removeFailsForMissingValuesTheEndMarkerAndTheRoot() {
        expectFailure(#"[{"op":"remove","path":"/b"}]"#, on: #"{"a":1}"#, code: .pathNotFound)
        expectFailure(#"[{"op":"remove","path":"/2"}]"#, on: "[1,2]", code: .pathNotFound)
        expectFailure(#"[{"op":"remove","path":"/-"}]"#, on: "[1,2]", code: .invalidIndex)
        expectFailure(#"[{"op":"remove","path":""}]"#, on: "[1,2]", code: .invalidTarget)
    }

    @Test func replaceNeedsAnExistingValueAndReplacesTheRoot() throws {
        expectFailure(#"[{"op":"replace","path":"/b","value":1}]"#, on: #"{"a":1}"#, code: .pathNotFound)
        expectFailure(#"[{"op":"replace","path":"/-","value":1}]"#, on: "[0]", code: .invalidIndex)
        #expect(try applying(#"[{"op":"replace","path":"","value":"x"}]"#, to: "[1]").canonicalText == #""x""#)
    }

    @Test func moveOntoItselfChangesNothingAndMoveIntoItsChildFails() throws {
        #expect(try applying(#"[{"op":"move","from":"/a","path":"/a"}]"#, to: #"{"a":{"b":1}}"#).canonicalText == #"{"a":{"b":1}}"#)
        expectFailure(#"[{"op":"move","from":"/a","path":"/a/b"}]"#, on: #"{"a":{"b":1}}"#, code: .invalidTarget)
        expectFailure(#"[{"op":"move","from":"/x","path":"/y"}]"#, on: #"{"a":1}"#, code: .pathNotFound)
        expectFailure(#"[{"op":"move","from":"/x","path":"/x"}]"#, on: #"{"a":1}"#, code: .pathNotFound)
    }

    @Test func moveToTheEndOfAnotherArray() throws {
        let result = try applying(#"[{"op":"move","from":"/a/0","path":"/b/-"}]"#, to: #"{"a":[1,2],"b":[3]}"#)
        #expect(result.canonicalText == #"{"a":[2],"b":[3,1]}"#)
    }

    @Test func copyDuplicatesAValue() throws {
        let result = try applying(#"[{"op":"copy","from":"/a","path":"/b"},{"op":"add","path":"/b/x","value":2}]"#, to: #"{"a":{"x":1}}"#)
        #expect(result.canonicalText == #"{"a":{"x":1},"b":{"x":2}}"#, "the copy is a value of its own")
        expectFailure(#"[{"op":"copy","from":"/z","path":"/b"}]"#, on: #"{"a":1}"#, code: .pathNotFound)
    }

    @Test func testFailsForADifferentValueOrAMissingPath() {
        expectFailure(#"[{"op":"test","path":"/baz","value":"bar"}]"#, on: #"{"baz":"qux"}"#, code: .testFailed)  // A.15
        expectFailure(#"[{"op":"test","path":"/a","value":"1"}]"#, on: #"{"a":1}"#, code: .testFailed)
        expectFailure(#"[{"op":"test","path":"/a","value":null}]"#, on: #"{"b":null}"#, code: .pathNotFound)
        expectFailure(#"[{"op":"test","path":"","value":{"a":[1,2]}}]"#, on: #"{"a":[2,1]}"#, code: .testFailed)
    }

    @Test func aFailingOperationLeavesNoPartialResult() throws {
        let document = try JSON(parsing: #"{"a":1}"#)
        let patch = try [PatchOperation](json: JSON(parsing: #"[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/zzz"}]"#))
        #expect(throws: JSONPatchError.self) { try apply(patch, to: document) }
        #expect(document.canonicalText == #"{"a":1}"#)
    }

    @Test(arguments: [
        #"{"op":"add","path":"/a"}"#, #"[{"op":"add","path":"/a"}]"#, #"[{"path":"/a","value":1}]"#, #"[{"op":"jump","path":"/a"}]"#,
        #"[{"op":"move","path":"/a"}]"#, #"[{"op":"remove","path":5}]"#, #"[{"op":"remove","path":"a"}]"#, "[1]",
    ])
    func malformedPatchDocumentsAreRefused(patch: String) throws {
        let json = try JSON(parsing: patch)
        #expect(throws: JSONPatchError.self) { try [PatchOperation](json: json) }
    }

    @Test func aNullValueIsAValue() throws {
        #expect(try applying(#"[{"op":"add","path":"/a","value":null}]"#, to: "{}").canonicalText == #"{"a":null}"#)
    }

    @Test func operationsEncodeWithSortedMembers() throws {
        let patch: [PatchOperation] = [
            .add(path: try JSONPointer("/a~1b"), value: [1]), .remove(path: .root),
            .move(from: try JSONPointer("/x"), path: try JSONPointer("/y")),
        ]
        #expect(String(decoding: patch.canonicalBytes, as: UTF8.self)
            == #"[{"op":"add","path":"/a~1b","value":[1]},{"op":"remove","path":""},{"from":"/x","op":"move","path":"/y"}]"#)
        #expect(try [PatchOperation](json: JSON(parsing: patch.canonicalBytes)) == patch)
    }
}
