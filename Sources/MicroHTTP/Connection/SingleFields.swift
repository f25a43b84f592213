/// The header fields a request may carry at most once, told by the ``Responder``
/// (``Responder/singleFieldNames``) and checked while the request head's fields are gathered
/// (``FramingFields``): a second one is answered `400` naming the field, before routing.
///
/// Two fields of one name are otherwise read as the first (`HTTPHeaders` subscript) or joined
/// into a list; for a field that must be single (an `Idempotency-Key`, a token, a precondition)
/// either reading can make a server act on a value the client, or a proxy in between, did not
/// mean.
///
/// A class: the field pass (``FramingFields``) holds it for every request, a struct of arrays
/// would be retained and released once per array.
final class SingleFields: Sendable {
    /// The names, lowercased, as bytes.
    private let names: [[UInt8]]
    /// The names as the responder spelled them, for answers.
    private let spelled: [String]
    /// Each name's ``KnownFieldNames`` bit (0 for another name).
    private let knownBits: [UInt32]
    /// The bits of the known names among them.
    let knownNames: UInt32
    /// Whether some name is not a known name (``index(of:)`` must then be asked of other fields).
    let hasOtherNames: Bool

    /// At most 64 names: which ones were seen is kept in one word.
    init(_ names: [String]) {
        var unique: [[UInt8]] = []
        var spelled: [String] = []
        for name in names {
            let lowercased = Array(name.lowercased().utf8)
            if unique.count < 64, !unique.contains(lowercased) {
                unique.append(lowercased)
                spelled.append(name)
            }
        }
        self.names = unique
        self.spelled = spelled
        knownBits = unique.map { name in
            name.withUnsafeBytes { bytes in
                bytes.baseAddress.map { KnownFieldNames.match($0, count: bytes.count).bit } ?? 0
            }
        }
        knownNames = knownBits.reduce(0, |)
        hasOtherNames = knownBits.contains(0)
    }

    /// The position of the known name whose bit is `bit` among the single fields, if it is one.
    func index(ofKnown bit: UInt32) -> Int? {
        guard knownNames & bit != 0 else { return nil }
        return knownBits.firstIndex(of: bit)
    }

    /// The position of the field `name` among the single fields, if it is one.
    func index(of name: UnsafeRawBufferPointer) -> Int? {
        for index in names.indices where names[index].count == name.count {
            if Self.matches(name, lowercased: names[index]) {
                return index
            }
        }
        return nil
    }

    /// The name at `index`, for the answer.
    func name(at index: Int) -> String {
        spelled[index]
    }

    /// Whether `name` spells `lowercased` (of the same length) in any case.
    private static func matches(_ name: UnsafeRawBufferPointer, lowercased: [UInt8]) -> Bool {
        lowercased.withUnsafeBufferPointer { wanted in
            for index in wanted.indices {
                let byte = name[index]
                if byte != wanted[index], byte.asciiLowercased != wanted[index] {
                    return false
                }
            }
            return true
        }
    }
}

/// Which single fields a request head carried, and the first one it carried twice.
struct SingleFieldCount {
    private var seen: UInt64 = 0
    /// The index (in ``SingleFields``) of the first field seen twice.
    private(set) var repeated: Int?

    /// Counts one field whose index is `index`; `isRepeat` when the caller knows it was seen
    /// before (a known name, whose first sight it noted itself).
    mutating func add(_ index: Int, isRepeat: Bool = false) {
        let bit: UInt64 = 1 << UInt64(index)
        if isRepeat || seen & bit != 0 {
            if repeated == nil {
                repeated = index
            }
        } else {
            seen |= bit
        }
    }
}
