import HTTPTestSupport
import JSONPatch
import Testing

/// `diff(canonical:_:maxOperations:)`: the operations of the trees' `diff`, found from the texts.
@Suite struct CanonicalDiffTests {
    @Test(arguments: [UInt64(11), 12, 13])
    func theOperationsAreTheTreesDiffs(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for iteration in 0..<1_500 {
            let old = RandomJSON.value(depth: 4, using: &random)
            var new = old
            for _ in 0...Int.random(in: 0...4, using: &random) {
                RandomJSON.mutate(&new, depth: 0, using: &random)
            }
            let expected = diff(old, new)
            let found = try diff(canonical: old.canonicalBytes, new.canonicalBytes, maxOperations: .max)
            #expect(found == expected, "seed \(seed), iteration \(iteration): \(old.canonicalText) -> \(new.canonicalText)")
            if found != expected { return }  // one report per seed is enough
            let limit = max(0, expected.count - 1)
            #expect(try diff(canonical: old.canonicalBytes, new.canonicalBytes, maxOperations: limit) == diff(old, new, maxOperations: limit))
        }
    }

    @Test func namesWithEscapesAndWhitespaceBetweenTokens() throws {
        let old = Array(#" { "a" : 1 , "a\"b" : [ 1 , 2 ] , "a\u00e9" : { "x" : true } } "#.utf8)
        let new = Array(#"{"a":1,"a\"b":[1,3],"aé":{"x":false},"b":null}"#.utf8)
        let expected = diff(try JSON(parsing: old), try JSON(parsing: new))
        #expect(try diff(canonical: old, new, maxOperations: .max) == expected)
        #expect(expected.count == 3)
    }

    @Test(arguments: [#"{"a":1"#, #"{"a" 1}"#, #"[1,2"#, #"{"a":"x}"#, "", "[1]]"])
    func aMalformedTextThrows(text: String) {
        #expect(throws: JSONPatchError.self) {
            try diff(canonical: Array(#"{"a":0}"#.utf8), Array(text.utf8), maxOperations: .max)
        }
    }

    @Test func equalTextsGiveNoOperationWithoutBeingRead() throws {
        let text = Array(#"{"items":[{"done":false,"id":0}],"n":1}"#.utf8)
        #expect(try diff(canonical: text, text, maxOperations: .max) == [])
    }
}
