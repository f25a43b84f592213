@testable import AccessControl
import Testing

/// ``JSONObjectScanner``: strict RFC 8259, one object, members as slices.
@Suite struct JSONObjectScannerTests {
    /// The members of `text` as (name, kind) pairs, or nil when it is malformed.
    private func members(_ text: String) -> [String]? {
        Array(text.utf8).withUnsafeBufferPointer { bytes -> [String]? in
            var scanner = JSONObjectScanner(bytes)
            var found: [String] = []
            while true {
                switch scanner.next() {
                case .malformed: return nil
                case .end: return found
                case .member(let name, let value):
                    let nameText = String(decoding: name.unescaped(), as: UTF8.self)
                    switch value {
                    case .string(let text): found.append("\(nameText)=s:\(String(decoding: text.unescaped(), as: UTF8.self))")
                    case .number: found.append("\(nameText)=n:\(value.double.map { String($0) } ?? "?")")
                    case .array(let elements):
                        var strings: [String] = []
                        let allStrings = JSONObjectScanner.forEachString(inArray: elements) {
                            strings.append(String(decoding: $0.unescaped(), as: UTF8.self))
                        }
                        found.append("\(nameText)=a:\(allStrings ? strings.joined(separator: "|") : "mixed")")
                    case .object: found.append("\(nameText)=o")
                    case .bool(let flag): found.append("\(nameText)=b:\(flag)")
                    case .null: found.append("\(nameText)=null")
                    }
                }
            }
        }
    }

    @Test func membersComeInOrderWithStringsAndNumbersReadable() {
        #expect(members(#" { "alg" : "HS256", "exp":1.8e9, "n":-0.5, "o":{"a":[1,{"b":null}]}, "t":true, "f":false, "z":null } "#) == [
            "alg=s:HS256", "exp=n:1800000000.0", "n=n:-0.5", "o=o", "t=b:true", "f=b:false", "z=null",
        ])
        #expect(members("{}") == [])
        #expect(members(#"{"a":[]}"#) == ["a=a:"])
        #expect(members(#"{"a":["x", "y z"],"b":["x",1]}"#) == ["a=a:x|y z", "b=a:mixed"])
    }

    @Test func escapesAreResolvedForComparison() {
        #expect(members(#"{"\u0061lg":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}"#) == ["alg=s:a\"b\\c/d\né😀"])
        let slice = Array(#"{"\u0061lg":1}"#.utf8).withUnsafeBufferPointer { bytes -> Bool in
            var scanner = JSONObjectScanner(bytes)
            guard case .member(let name, _) = scanner.next() else { return false }
            return name.hasEscapes && name.equals("alg".utf8)
        }
        #expect(slice)
    }

    @Test(arguments: [
        "", " ", "[]", "\"a\"", "1", "null", "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{,"a":1}"#,
        #"{"a":1 "b":2}"#, #"{a:1}"#, #"{'a':1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":1e}"#,
        #"{"a":+1}"#, #"{"a":NaN}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\ud800"}"#,
        #"{"a":"\udc00"}"#, "{\"a\":\"tab\there\"}", #"{"a":1}x"#, #"{"a":1}{}"#, #"{"a":[1,]}"#, #"{"a":{"b":1,}}"#,
        "{\"a\":1} // comment", #"{"a":"unterminated}"#,
    ])
    func anythingButOneStrictObjectIsMalformed(text: String) {
        #expect(members(text) == nil, "\(text.debugDescription)")
    }

    @Test func invalidUTF8InAStringIsMalformed() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var scanner = JSONObjectScanner(buffer)
            if case .malformed = scanner.next() { return true }
            return false
        }
        #expect(result)
    }

    @Test func nestingDeeperThanTheLimitIsMalformed() {
        let depth = JSONObjectScanner.maximumDepth
        let fits = #"{"a":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        let tooDeep = #"{"a":"# + String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1) + "}"
        #expect(members(fits) != nil)
        #expect(members(tooDeep) == nil)
    }
}
