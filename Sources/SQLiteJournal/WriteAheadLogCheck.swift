#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds commits that SQLite would drop from a write-ahead log left by a crash: SQLite replays
/// frames until the first one whose checksum or salt does not hold, and takes everything after it
/// as the torn end of the last transaction. That is right for a transaction cut short, but a
/// damaged frame *followed by complete later transactions* may be damage to commits that were
/// synced and acknowledged (with `synchronous=FULL` a commit is synced before the next
/// transaction is written): SQLite would drop them silently, and a clean stop would then delete
/// the log. It may also be the torn end of a transaction written without a sync of its own (a
/// fold of the log into `actions`, a snapshot of a store other than `default`) that a power loss
/// cut short while what followed it was written: then no sync completed after it, and nothing
/// that follows was acknowledged. The frames do not tell the two apart, so both refuse the start
/// and the message names both.
///
/// The format (sqlite.org/fileformat2.html, "WAL File Format"; `walIndexRecover` and
/// `walDecodeFrame` in SQLite's `wal.c`): a 32-byte header (magic, version, page size,
/// checkpoint sequence, two salts, a checksum of the first 24 bytes), then frames of a 24-byte
/// header (page number, the database size after a commit — non-zero only on a transaction's last
/// frame —, the two salts, a running checksum over every frame so far) and a page. Each frame's
/// stored checksum continues from the previous frame's, so a frame after a damaged one can still
/// be checked against its predecessor's stored values.
struct WriteAheadLogCheck {
    /// The complete transactions after the one holding the first damaged frame, which SQLite
    /// would drop: acknowledged commits if the damaged one had been synced, none if it is the
    /// torn end of an unsynced one (0: none, the log is whole or only its last transaction is
    /// torn).
    let transactionsLostAfterDamage: Int
    /// The byte offset of the first damaged frame (or of the header), when there is one.
    let damageOffset: Int?

    private static let headerSize = 32
    private static let frameHeaderSize = 24

    /// Checks the log at `path`; nil when it cannot be read (SQLite then reports what it finds).
    static func check(path: String) -> WriteAheadLogCheck? {
        guard let bytes = readAll(path), bytes.count >= headerSize else { return nil }
        let magic = word(bytes, 0, bigEndian: true)
        let bigEndian = magic & 1 == 1
        let pageSize = Int(word(bytes, 8, bigEndian: true))
        let headerIntact = (magic == 0x377f_0682 || magic == 0x377f_0683)
            && checksum(bytes, 0..<24, from: (0, 0), bigEndian: bigEndian)
                == (word(bytes, 24, bigEndian: true), word(bytes, 28, bigEndian: true))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            // No usable page size: nothing can be checked (SQLite ignores such a log too).
            return WriteAheadLogCheck(transactionsLostAfterDamage: 0, damageOffset: nil)
        }
        let frameSize = frameHeaderSize + pageSize
        let salts = headerIntact
            ? (word(bytes, 16, bigEndian: true), word(bytes, 20, bigEndian: true))
            // A damaged header: the salts its frames carry, if the first frame has them.
            : bytes.count >= headerSize + frameSize
                ? (word(bytes, headerSize + 8, bigEndian: true), word(bytes, headerSize + 12, bigEndian: true))
                : (0, 0)
        var previous = (word(bytes, 24, bigEndian: true), word(bytes, 28, bigEndian: true))
        var damage: Int? = headerIntact ? nil : 0
        var commitsAfterDamage = 0
        var offset = headerSize
        while offset + frameSize <= bytes.count {
            let stored = (word(bytes, offset + 16, bigEndian: true), word(bytes, offset + 20, bigEndian: true))
            let saltsHold = (word(bytes, offset + 8, bigEndian: true), word(bytes, offset + 12, bigEndian: true)) == salts
            let computed = checksum(
                bytes, offset..<(offset + 8), then: (offset + frameHeaderSize)..<(offset + frameSize),
                from: previous, bigEndian: bigEndian
            )
            let valid = saltsHold && computed == stored
            let isCommit = word(bytes, offset + 4, bigEndian: true) != 0
            if damage == nil, !valid {
                // Frames of an earlier generation of the log (other salts) end it normally.
                guard saltsHold || word(bytes, offset + 8, bigEndian: true) == salts.0 else { break }
                damage = offset
            }
            if damage != nil, valid, isCommit {
                commitsAfterDamage += 1
            }
            previous = stored
            offset += frameSize
        }
        // The first commit after the damage ends the transaction that holds it (torn, perhaps:
        // never acknowledged); only the ones after that are lost with it.
        return WriteAheadLogCheck(transactionsLostAfterDamage: max(0, commitsAfterDamage - 1), damageOffset: damage)
    }

    /// SQLite's WAL checksum (`walChecksumBytes`) over `first` then `second`, continuing from
    /// `seed`, in 32-bit words of the log's byte order.
    private static func checksum(
        _ bytes: [UInt8], _ first: Range<Int>, then second: Range<Int> = 0..<0, from seed: (UInt32, UInt32), bigEndian: Bool
    ) -> (UInt32, UInt32) {
        var (s1, s2) = seed
        for range in [first, second] {
            var index = range.lowerBound
            while index + 8 <= range.upperBound {
                s1 = s1 &+ word(bytes, index, bigEndian: bigEndian) &+ s2
                s2 = s2 &+ word(bytes, index + 4, bigEndian: bigEndian) &+ s1
                index += 8
            }
        }
        return (s1, s2)
    }

    private static func word(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt32 {
        let b = (UInt32(bytes[offset]), UInt32(bytes[offset + 1]), UInt32(bytes[offset + 2]), UInt32(bytes[offset + 3]))
        return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
    }

    private static func readAll(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}
