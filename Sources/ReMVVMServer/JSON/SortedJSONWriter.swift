import Foundation

/// Encodes `Encodable` values as JSON bytes: byte for byte what Foundation's `JSONEncoder` gives
/// with `[.sortedKeys, .withoutEscapingSlashes]` and its default strategies (``JSONCoding/encoder``),
/// written straight into one byte array as the values are encoded, where `JSONEncoder` first
/// builds a tree of values (a dictionary for every object) and then serializes it.
///
/// An object's members are written in the order they are encoded, one after another, and put in
/// the order of their keys' UTF-8 bytes (as `JSONEncoder` sorts them) when the object is
/// complete; a key encoded twice keeps its last value (also a nested container opened again for a
/// key, which `JSONEncoder` would merge with the first: no synthesized conformance does that).
/// Containers are used as synthesized `Codable` code uses them: a container finishes when a
/// container before it is written to again. What this encoder does not do ends the attempt with
/// ``Unsupported`` and the caller (``JSONCoding/encode(_:)``) encodes with `JSONEncoder` instead: a
/// `superEncoder()`, a container written to after it finished, a key that needs escaping, a
/// non-finite number; so does an error the value throws (`JSONEncoder` then gives it its form).
///
/// One instance encodes one value, on one thread; its stored properties skip the runtime's
/// exclusivity checks (`@exclusivity(unchecked)`: in a profile they took more time than the
/// writing itself), and no two accesses here overlap.
final class SortedJSONWriter {
    /// The value needs `JSONEncoder` (see the type's documentation).
    struct Unsupported: Error {
        /// Whether every value of the type would need it (a container used in a way this encoder
        /// does not follow), not only this value (a non-finite number).
        var isStructural: Bool
    }

    /// An object or array being written; its members' bytes follow `contentStart`.
    struct Frame {
        var id: Int
        var isObject: Bool
        /// Members or elements written so far.
        var count = 0
        /// Where this object's members start in ``members``.
        var memberBase: Int
        /// The first byte after the opening bracket.
        var contentStart: Int
    }

    /// Where a member of an object starts (its key's opening quote) and where its key ends (after
    /// the closing quote); it ends where the next member's comma is, or at the object's end.
    struct Member {
        var start: Int
        var keyEnd: Int
    }

    @exclusivity(unchecked) var bytes: [UInt8] = []
    @exclusivity(unchecked) var frames: [Frame] = []
    @exclusivity(unchecked) var members: [Member] = []
    @exclusivity(unchecked) var codingPath: [any CodingKey] = []
    /// Set when a container was used in a way this encoder does not follow; the result is thrown
    /// away.
    @exclusivity(unchecked) var failed = false
    @exclusivity(unchecked) private var nextFrameID = 0
    /// `frames.count` when the value being encoded started: its container is `frames[boundary]`.
    @exclusivity(unchecked) private var boundary = 0
    /// `bytes.count` when the value being encoded started.
    @exclusivity(unchecked) private var valueStart = 0
    /// How many values are being encoded, one inside another.
    @exclusivity(unchecked) private var depth = 0
    /// Reused when an object's members are put in order.
    @exclusivity(unchecked) var scratch: [UInt8] = []
    @exclusivity(unchecked) var order: [Int] = []

    /// `value`'s JSON. Throws ``Unsupported`` (or what `value` threw) when `JSONEncoder` must do it.
    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let writer = SortedJSONWriter()
        writer.bytes.reserveCapacity(256)
        try writer.encodeValue(value)
        guard !writer.failed else { throw Unsupported(isStructural: true) }
        return writer.bytes
    }

    /// Writes `value` where a value is due: Foundation's own types as `JSONEncoder` writes them,
    /// anything else through its `encode(to:)`, with whatever containers it opened finished after.
    func encodeValue<Value: Encodable>(_ value: Value) throws {
        // The type compared first: a cast is tried only for the three types it can succeed for.
        if Value.self == Data.self, let data = value as? Data {
            writeString(data.base64EncodedString())
            return
        } else if Value.self == URL.self, let url = value as? URL {
            writeString(url.absoluteString)
            return
        } else if Value.self == Decimal.self, let decimal = value as? Decimal {
            bytes.append(contentsOf: decimal.description.utf8)
            return
        }
        let (outerBoundary, outerStart) = (boundary, valueStart)
        boundary = frames.count
        valueStart = bytes.count
        depth += 1
        defer {
            boundary = outerBoundary
            valueStart = outerStart
            depth -= 1
        }
        try value.encode(to: self)
        if frames.count > boundary {
            finishFrames(from: boundary)
        } else if bytes.count == valueStart {
            // `JSONEncoder` writes `{}` for a value that encoded nothing, and refuses it at the top.
            if depth == 1 { failed = true }
            bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        }
    }

    // MARK: Containers

    /// The object of the value being encoded: a new one, or the one it opened before.
    func objectOfValue() -> (index: Int, id: Int)? {
        if frames.count > boundary {
            guard frames[boundary].isObject else { return fail() }
            finishFrames(from: boundary + 1)
            return (boundary, frames[boundary].id)
        }
        guard bytes.count == valueStart else { return fail() }
        return openFrame(isObject: true)
    }

    /// The array of the value being encoded: a new one, or the one it opened before.
    func arrayOfValue() -> (index: Int, id: Int)? {
        if frames.count > boundary {
            guard !frames[boundary].isObject else { return fail() }
            finishFrames(from: boundary + 1)
            return (boundary, frames[boundary].id)
        }
        guard bytes.count == valueStart else { return fail() }
        return openFrame(isObject: false)
    }

    func openFrame(isObject: Bool) -> (index: Int, id: Int) {
        nextFrameID += 1
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append(Frame(id: nextFrameID, isObject: isObject, memberBase: members.count, contentStart: bytes.count))
        return (frames.count - 1, nextFrameID)
    }

    /// Makes the frame at `index` the one being written (finishing those after it); false (and
    /// the attempt failed) if it finished already or belongs to a value outside the current one.
    func resume(_ index: Int, _ id: Int) -> Bool {
        guard !failed, index >= boundary, index < frames.count, frames[index].id == id else {
            failed = true
            return false
        }
        if frames.count > index + 1 { finishFrames(from: index + 1) }
        return true
    }

    /// Starts the member `key` of the object at `index`: its comma and `"key":`.
    func beginMember(_ index: Int, _ id: Int, _ key: String) -> Bool {
        guard resume(index, id) else { return false }
        if frames[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[index].count += 1
        let start = bytes.count
        guard writePlainString(key) else {
            failed = true
            return false
        }
        members.append(Member(start: start, keyEnd: bytes.count))
        bytes.append(UInt8(ascii: ":"))
        return true
    }

    /// Starts the next element of the array at `index`: its comma.
    func beginElement(_ index: Int, _ id: Int) -> Bool {
        guard resume(index, id) else { return false }
        if frames[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[index].count += 1
        return true
    }

    /// A single value of the value being encoded can be written: nothing is written for it yet.
    func beginSingleValue() -> Bool {
        guard !failed, frames.count == boundary, bytes.count == valueStart else {
            failed = true
            return false
        }
        return true
    }

    /// Closes the frames from `index` on, the newest first.
    func finishFrames(from index: Int) {
        while frames.count > index {
            let frame = frames.removeLast()
            if frame.isObject {
                if frame.count > 1 { putMembersInOrder(of: frame) }
                members.removeSubrange(frame.memberBase...)
                bytes.append(UInt8(ascii: "}"))
            } else {
                bytes.append(UInt8(ascii: "]"))
            }
        }
    }

    private func fail<T>() -> T? {
        failed = true
        return nil
    }
}
