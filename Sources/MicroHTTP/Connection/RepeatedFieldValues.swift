#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The long header values (over 15 bytes: stored strings, not small ones) of a connection's
/// recent requests, handed out again when a later request on the connection repeats one byte
/// for byte — a client sends the same `Authorization`, `User-Agent`, `Cookie` and `Accept` on
/// every request of a kept-alive connection.
///
/// Making a `String` of a field's bytes validates and copies them into a new allocation (about
/// 300 instructions with its release); comparing them with a kept value is a length check and a
/// `memcmp`. A value handed out again is the same string object, so comparing it with one kept
/// from the earlier request (the credential remembered on the connection) is immediate.
///
/// Used only on the connection's worker thread (libmicrohttpd serves a connection on the thread
/// that accepted it, suspended or not; ``ConnectionRecord/decoded(_:length:)`` relies on the
/// same), so its values are kept behind a plain pointer: a mutex taken once per request cost
/// more than the values save on a request that repeats none.
final class RepeatedFieldValues: @unchecked Sendable {
    /// How many values are kept; past that the oldest is replaced.
    static let capacity = 8
    /// Shorter values are small strings: made in place, nothing to save.
    static let minimumCount = 16

    /// The kept values: read and written by the connection's worker thread only.
    let values: UnsafeMutablePointer<Values>

    init() {
        values = .allocate(capacity: 1)
        values.initialize(to: Values())
    }

    deinit {
        values.deinitialize(count: 1)
        values.deallocate()
    }

    /// The kept values.
    struct Values {
        private var values: [String] = []
        private var next = 0

        /// The string of `bytes`: a kept one when it holds exactly these bytes, else a new one
        /// (made with `make`), kept from now on.
        mutating func value(_ bytes: UnsafeRawBufferPointer, make: (UnsafeRawBufferPointer) -> String) -> String {
            guard bytes.count >= RepeatedFieldValues.minimumCount else { return make(bytes) }
            for index in values.indices where Self.holds(values[index], bytes) {
                return values[index]
            }
            let made = make(bytes)
            if values.count < RepeatedFieldValues.capacity {
                values.append(made)
            } else {
                values[next] = made
                next = (next + 1) % RepeatedFieldValues.capacity
            }
            return made
        }

        /// Whether `string`'s UTF-8 is exactly `bytes`.
        private static func holds(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
            guard string.utf8.count == bytes.count else { return false }
            guard let expected = bytes.baseAddress else { return bytes.isEmpty }
            return string.utf8.withContiguousStorageIfAvailable { stored in
                stored.baseAddress.map { memcmp($0, expected, bytes.count) == 0 } ?? false
            } ?? false
        }
    }
}
