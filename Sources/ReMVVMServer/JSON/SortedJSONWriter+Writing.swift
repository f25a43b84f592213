/// The bytes of JSON's scalars, as `JSONEncoder` writes them, and the key order of objects.
extension SortedJSONWriter {
    /// `text` as a JSON string (``appendString(_:to:)``).
    func writeString(_ text: String) {
        Self.appendString(text, to: &bytes)
    }

    /// Appends `text` as a JSON string: `"`, `\` and the control characters escaped as
    /// `JSONEncoder` escapes them (`\b \f \n \r \t`, others `\u00xx`), everything else (`/`, DEL,
    /// non-ASCII) as is.
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8 { utf8 in
            var mark = 0
            for index in utf8.indices where needsEscape(utf8[index]) {
                let byte = utf8[index]
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index]))
                mark = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(hexDigit(byte >> 4))
                    bytes.append(hexDigit(byte & 0x0F))
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string if it needs no escape (an object's key); false, with nothing
    /// written, if it does.
    func writePlainString(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard !utf8.contains(where: Self.needsEscape) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
    }

    /// Whether `byte` is written escaped in a JSON string: `"`, `\` and the control characters.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// `value` in decimal, as its `description`.
    func writeInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        writeInteger(value.magnitude)
    }

    /// `value` in decimal, as its `description`.
    func writeInteger(_ value: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits
        var remaining = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }

    /// `value` as `JSONEncoder` writes it: its `description` without a trailing `.0`. Throws for
    /// a non-finite value (`JSONEncoder` refuses it, with an error of its own).
    func writeFloatingPoint<Value: BinaryFloatingPoint & CustomStringConvertible>(_ value: Value) throws {
        guard value.isFinite else { throw Unsupported(isStructural: false) }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// Puts the members of `frame` (an object just finished) in the order of their keys' bytes,
    /// keeping the last of members with the same key; nothing moves if they are in order already.
    func putMembersInOrder(of frame: Frame) {
        let base = frame.memberBase
        let count = members.count - base
        guard count > 1 else { return }
        let inOrder = bytes.withUnsafeBufferPointer { buffer in
            (1..<count).allSatisfy { Self.key(members[base + $0 - 1], precedes: members[base + $0], in: buffer) }
        }
        if inOrder { return }
        order.removeAll(keepingCapacity: true)
        bytes.withUnsafeBufferPointer { buffer in
            // Insertion sort, stable: members are few, and often nearly in order.
            for index in 0..<count {
                var position = order.count
                while position > 0, Self.key(members[base + index], precedes: members[base + order[position - 1]], in: buffer) {
                    position -= 1
                }
                order.insert(index, at: position)
            }
        }
        // Of members with one key (adjacent now, in the order written), the last one stays.
        var kept = 0
        for position in order.indices {
            if position + 1 < order.count, sameKey(members[base + order[position]], members[base + order[position + 1]]) { continue }
            order[kept] = order[position]
            kept += 1
        }
        order.removeSubrange(kept...)
        let end = bytes.count
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[frame.contentStart..<end])
        bytes.removeSubrange(frame.contentStart...)
        for (position, index) in order.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            let start = members[base + index].start
            let memberEnd = index + 1 < count ? members[base + index + 1].start - 1 : end
            bytes.append(contentsOf: scratch[(start - frame.contentStart)..<(memberEnd - frame.contentStart)])
        }
    }

    private func sameKey(_ left: Member, _ right: Member) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            !Self.key(left, precedes: right, in: buffer) && !Self.key(right, precedes: left, in: buffer)
        }
    }

    /// Whether `left`'s key comes before `right`'s, by their UTF-8 bytes (a prefix first).
    private static func key(_ left: Member, precedes right: Member, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        let leftKey = UnsafeBufferPointer(rebasing: buffer[(left.start + 1)..<(left.keyEnd - 1)])
        let rightKey = UnsafeBufferPointer(rebasing: buffer[(right.start + 1)..<(right.keyEnd - 1)])
        return leftKey.lexicographicallyPrecedes(rightKey)
    }
}
