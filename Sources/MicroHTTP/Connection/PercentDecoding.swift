internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `MHD_UnescapeCallback`: decodes `%HH` in a request's path and query exactly as libmicrohttpd
/// does by default (`MHD_http_unescape`), and notes each result's length on the connection.
///
/// libmicrohttpd hands the access handler the path as a C string, so a decoded NUL (`%00`) would
/// end it early: `/state%00foo` would be served as `/state`. The path is the last string decoded
/// before the handler is called, so ``requestPath(_:of:)`` finds its real length here.
func percentDecode(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ text: UnsafeMutablePointer<CChar>?) -> Int {
    guard let text else { return 0 }
    let length = MHD_http_unescape(text)
    if let connection, let record = connectionRecord(of: connection) {
        record.decoded(text, length: length)
    }
    return length
}

/// The request's decoded path, NULs included (a path with one matches no route).
func requestPath(_ url: UnsafePointer<CChar>, of connection: OpaquePointer) -> String {
    let length = connectionRecord(of: connection)?.decodedLength(of: url) ?? strlen(url)
    return url.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }
}

/// Whether the request's decoded path is UTF-8 (see ``requestPath(_:of:)``).
func requestPathIsUTF8(_ url: UnsafePointer<CChar>, of connection: OpaquePointer) -> Bool {
    let length = connectionRecord(of: connection)?.decodedLength(of: url) ?? strlen(url)
    return url.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        isUTF8(UnsafeBufferPointer(start: bytes, count: length))
    }
}

/// Whether `bytes` are UTF-8, checked without making a string (this runs for every request):
/// the ASCII prefix (usually all of a path) 8 bytes at a time, the rest scalar by scalar.
func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var ascii = 0
    while ascii + 8 <= bytes.count,
          UnsafeRawPointer(base + ascii).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
        ascii += 8
    }
    while ascii < bytes.count, base[ascii] < 0x80 {
        ascii += 1
    }
    // A scalar starts at the first byte that is not ASCII: every byte before it is one.
    var iterator = UnsafeBufferPointer(rebasing: bytes[ascii...]).makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}
