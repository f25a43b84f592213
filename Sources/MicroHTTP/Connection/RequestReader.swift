internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads the parts of a request libmicrohttpd has parsed (method, headers, query).
///
/// Runs on the connection's worker thread, inside the access handler.
enum RequestReader {
    /// The method, reusing the shared constants for the common ones (told apart with `strcmp`:
    /// through `String.UTF8View` the comparisons cost about 370 instructions a request).
    static func method(_ token: UnsafePointer<CChar>) -> HTTPMethod {
        switch UInt8(bitPattern: token.pointee) {
        case UInt8(ascii: "G") where strcmp(token, "GET") == 0: return .GET
        case UInt8(ascii: "P") where strcmp(token, "POST") == 0: return .POST
        case UInt8(ascii: "P") where strcmp(token, "PUT") == 0: return .PUT
        case UInt8(ascii: "P") where strcmp(token, "PATCH") == 0: return .PATCH
        case UInt8(ascii: "H") where strcmp(token, "HEAD") == 0: return .HEAD
        case UInt8(ascii: "D") where strcmp(token, "DELETE") == 0: return .DELETE
        case UInt8(ascii: "O") where strcmp(token, "OPTIONS") == 0: return .OPTIONS
        default:
            let bytes = UnsafeRawBufferPointer(start: token, count: strlen(token))
            return HTTPMethod(rawValue: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Whether the request line named exactly HTTP/1.1 (libmicrohttpd then frames bodies of
    /// unknown length as chunks).
    static func isHTTP11(_ version: UnsafePointer<CChar>?) -> Bool {
        guard let version else { return false }
        return strcmp(version, "HTTP/1.1") == 0
    }

    /// The query parameters, already percent-decoded by libmicrohttpd, in the order received:
    /// as pairs (repeats included) and as a dictionary (the last repeat wins); and whether every
    /// name and value is UTF-8 (if not, invalid bytes are shown as U+FFFD, and `%FF` and `%FE`
    /// would read as the same text: the request is refused, see ``AccessHandler``).
    static func query(
        of connection: OpaquePointer
    ) -> (items: [(name: String, value: String)], values: [String: String], isUTF8: Bool) {
        var collection = QueryCollection()
        _ = withUnsafeMutablePointer(to: &collection) { pointer in
            // As for the headers: one call a parameter, `cls` the ``QueryCollection`` behind `pointer`.
            MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls else { return .NO }
                cls.assumingMemoryBound(to: QueryCollection.self).pointee.add(key, keySize, value, valueSize)
                return .YES
            }, pointer)
        }
        guard !collection.items.isEmpty else { return ([], [:], true) }
        var values: [String: String] = [:]
        for (name, value) in collection.items {
            values[name] = value
        }
        return (collection.items, values, collection.isUTF8)
    }

    /// Whether the client sent `Expect: 100-continue` (it waits for a go-ahead before the body).
    static func expectsContinue(_ connection: OpaquePointer) -> Bool {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect") else { return false }
        return strcasecmp(value, "100-continue") == 0
    }

    /// The declared `Content-Length`, or `nil` when absent (e.g. a chunked body).
    static func contentLength(of connection: OpaquePointer) -> UInt64? {
        guard let text = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else {
            return nil
        }
        return contentLength(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }

    /// A `Content-Length` value's number: digits, blanks around them ignored; nil when it holds
    /// anything else or no digit, `UInt64.max` when it overflows.
    static func contentLength(_ text: UnsafeRawBufferPointer) -> UInt64? {
        var value: UInt64 = 0
        var digits = 0
        for byte in text {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? .max : sum
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}

/// The text of `count` bytes at `pointer` if they are UTF-8, else nil.
private func validatedString(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String? {
    guard let pointer else { return "" }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
        String(validating: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// The query parameters collected by ``RequestReader/query(of:)``, and whether all were UTF-8.
private struct QueryCollection {
    var items: [(name: String, value: String)] = []
    var isUTF8 = true

    /// Appends the parameter of `keySize` and `valueSize` bytes; a name or value that is not UTF-8
    /// is kept with U+FFFD for its invalid bytes, and clears ``isUTF8``.
    mutating func add(
        _ key: UnsafePointer<CChar>?,
        _ keySize: Int,
        _ value: UnsafePointer<CChar>?,
        _ valueSize: Int
    ) {
        let name = validatedString(key, keySize)
        let text = validatedString(value, valueSize)
        if name == nil || text == nil {
            isUTF8 = false
        }
        items.append((name: name ?? decodedText(key, keySize), value: text ?? decodedText(value, valueSize)))
    }
}

