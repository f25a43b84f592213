import HTTPTestSupport
import JSONPatch
import Testing

/// `apply(diff(a, b), a)` gives `b` byte for byte, for many random documents and random edits.
@Suite struct RandomizedDiffTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func applyingTheDiffGivesTheNewDocumentExactly(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var operations: [String: Int] = [:]
        for iteration in 0..<1_500 {
            let old = RandomJSON.value(depth: 4, using: &random)
            var new = old
            for _ in 0...Int.random(in: 0...4, using: &random) {
                RandomJSON.mutate(&new, depth: 0, using: &random)
            }
            let patch = diff(old, new)
            for operation in patch { operations[operation.name, default: 0] += 1 }
            let applied = try apply(patch, to: old)
            #expect(applied.canonicalBytes == new.canonicalBytes, "seed \(seed), iteration \(iteration): \(old.canonicalText) -> \(new.canonicalText) by \(patch.json.canonicalText)")
            // The patch survives its own encoding, and so do the documents.
            let decoded = try [PatchOperation](json: JSON(parsing: patch.canonicalBytes))
            #expect(decoded == patch)
            #expect(try JSON(parsing: new.canonicalBytes) == new)
            if old == new {
                #expect(patch.isEmpty)
            }
            if applied.canonicalBytes != new.canonicalBytes { return }  // one report per seed is enough
        }
        // The edits exercised every operation diff makes, many times.
        #expect(operations["add", default: 0] > 100 && operations["remove", default: 0] > 100 && operations["replace", default: 0] > 500, "\(operations)")
    }
}

/// Random JSON documents, and random edits of them.
enum RandomJSON {
    /// Names that collide often (so edits hit existing members) and need escaping in pointers.
    static let names = ["a", "b", "c", "", "/", "~", "~1", "a/b", "m~n", "é", "e\u{301}", "😀", "0", "-", "id", "items"]
    static let strings = ["", "x", "a/b", "~0", "é", "e\u{301}", "😀", "\"", "\\", "\n", "\u{0}", "\u{1F}", "tab\there", "\u{2028}", "Todo item"]
    static let numbers = ["0", "-0", "1", "-1", "1.0", "1e400", "-1E-400", "0.10", "12.50e+3", "100000000000000000000000000001", "3.14159"]

    static func value(depth: Int, using random: inout SplitMix64) -> JSON {
        let kinds = depth > 0 ? 7 : 5
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(numbers.randomElement(using: &random) ?? "0")
        case 3: return .number(String(Int.random(in: -1000...1000, using: &random)))
        case 4: return .string(strings.randomElement(using: &random) ?? "")
        case 5:
            return .array((0..<Int.random(in: 0...6, using: &random)).map { _ in value(depth: depth - 1, using: &random) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                object[names.randomElement(using: &random) ?? "a"] = value(depth: depth - 1, using: &random)
            }
            return .object(object)
        }
    }

    /// One random edit somewhere in `value`: at this level, or in a child.
    static func mutate(_ value: inout JSON, depth: Int, using random: inout SplitMix64) {
        switch value {
        case .array(var items):
            if !items.isEmpty, depth < 6, Int.random(in: 0..<3, using: &random) == 0 {
                let index = Int.random(in: 0..<items.count, using: &random)
                mutate(&items[index], depth: depth + 1, using: &random)
                value = .array(items)
                return
            }
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                items.insert(self.value(depth: 2, using: &random), at: Int.random(in: 0...items.count, using: &random))
            case 1 where !items.isEmpty:
                items.remove(at: Int.random(in: 0..<items.count, using: &random))
            case 2 where items.count > 1:
                items.swapAt(Int.random(in: 0..<items.count, using: &random), Int.random(in: 0..<items.count, using: &random))
            case 3 where !items.isEmpty:
                items.append(items[Int.random(in: 0..<items.count, using: &random)])
            case 4:
                items.removeAll()
            default:
                value = self.value(depth: 2, using: &random)
                return
            }
            value = .array(items)
        case .object(var object):
            let keys = object.keys
            if !keys.isEmpty, depth < 6, Int.random(in: 0..<3, using: &random) == 0 {
                let key = keys.randomElement(using: &random) ?? ""
                var child = object[key] ?? .null
                mutate(&child, depth: depth + 1, using: &random)
                object[key] = child
                value = .object(object)
                return
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                object[names.randomElement(using: &random) ?? "a"] = self.value(depth: 2, using: &random)
            case 1 where !keys.isEmpty:
                object[keys.randomElement(using: &random) ?? ""] = nil
            case 2:
                object = JSONObject()
            default:
                value = self.value(depth: 2, using: &random)
                return
            }
            value = .object(object)
        default:
            value = self.value(depth: 2, using: &random)
        }
    }
}
