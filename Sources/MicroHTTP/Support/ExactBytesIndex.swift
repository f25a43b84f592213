#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A few dozen strings (the router's literal paths, the action registry's wire names), each with a
/// number, found by their length and then their bytes: comparing a request's path or an action's
/// name with the two or three of its length costs a few dozen instructions, where a
/// `[String: …]` lookup hashed it (SipHash, about 400) and compared it with the key of every
/// occupied bucket it probed.
///
/// Exact: byte for byte in UTF-8, no Unicode normalization (as the router matches paths).
package struct ExactBytesIndex: Sendable {
    private struct Entry: Sendable {
        let bytes: [UInt8]
        let value: Int
    }

    /// Entries by path length in bytes; paths longer than any entry have no bucket.
    private var byLength: [[Entry]] = []

    /// An empty index.
    package init() {}

    /// Adds `path` with `value` (a later add of the same path replaces it).
    package mutating func set(_ path: String, to value: Int) {
        let bytes = Array(path.utf8)
        while byLength.count <= bytes.count {
            byLength.append([])
        }
        if let index = byLength[bytes.count].firstIndex(where: { $0.bytes == bytes }) {
            byLength[bytes.count][index] = Entry(bytes: bytes, value: value)
        } else {
            byLength[bytes.count].append(Entry(bytes: bytes, value: value))
        }
    }

    /// The value added for exactly the string of `bytes`, or nil.
    package func value(forBytes bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count < byLength.count else { return nil }
        return Self.value(for: bytes, in: byLength[bytes.count])
    }

    /// The value added for exactly `path`, or nil.
    package func value(for path: String) -> Int? {
        // No bucket of its length: nothing to compare (and no bytes to lend).
        let count = path.utf8.count
        guard count < byLength.count, !byLength[count].isEmpty else { return nil }
        // Native and small strings lend their bytes in place; a bridged one is copied.
        if let found = path.utf8.withContiguousStorageIfAvailable({ value(forBytes: $0) }) {
            return found
        }
        return Array(path.utf8).withUnsafeBufferPointer { value(forBytes: $0) }
    }

    /// The value of the candidate (all of `bytes`' length) that holds exactly `bytes`.
    private static func value(for bytes: UnsafeBufferPointer<UInt8>, in candidates: [Entry]) -> Int? {
        guard let path = bytes.baseAddress else {
            // The empty path: the one candidate of length 0 holds it.
            return candidates.first?.value
        }
        for entry in candidates {
            let equal = entry.bytes.withUnsafeBufferPointer { stored in
                stored.baseAddress.map { memcmp($0, path, bytes.count) == 0 } ?? false
            }
            if equal { return entry.value }
        }
        return nil
    }
}
