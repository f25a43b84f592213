internal import CMicroHTTPD
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `MHD_LogCallback`: libmicrohttpd's diagnostics, formatted and sent to the server's logger.
///
/// Each message repeats as often as what causes it (a failed `accept` while file descriptors
/// run out, an error page per malformed request): one line per kind, then a count
/// (``RateLimitedLog``); the kind is the format string, a constant of libmicrohttpd's.
func daemonLog(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let level = daemonLogLevel(for: format)
    server.daemonLogRepeats.log(level, "libmicrohttpd: \(formatted(format, arguments))", kind: Int(bitPattern: format), to: server.logger)
}

/// The message `format` and `arguments` make, without trailing blanks and newlines.
private func formatted(_ format: UnsafePointer<CChar>, _ arguments: CVaListPointer) -> Substring {
    let message = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer -> String in
        guard let base = buffer.baseAddress else { return "" }
        guard vsnprintf(base, buffer.count, format, arguments) >= 0 else { return String(cString: format) }
        return String(cString: base)
    }
    var trimmed = Substring(message)
    while let last = trimmed.last, last.isNewline || last == " " {
        trimmed.removeLast()
    }
    return trimmed
}

/// Messages about what a client did (malformed requests, disconnects, streams we ended on
/// purpose) are routine: debug. Everything else (limits reached, system call failures) is a
/// warning.
private func daemonLogLevel(for format: UnsafePointer<CChar>) -> Logger.Level {
    let routine = [
        "Error processing request",
        "Not enough memory in pool",
        "Failed to parse",
        "Too large value",
        "Application reported internal error",
        "Failed to send",
        "Failed to receive",
        "Closing connection (application error",
        "Connection was closed",
        "Connection reset",
        "Socket disconnected",
        "Socket has been disconnected",
        // A connection cut off by the server itself (a slow request head, a stalled stream).
        "Connection socket is closed when reading request",
        "Server reached per-IP connection limit",
    ]
    return routine.contains { strncmp(format, $0, strlen($0)) == 0 } ? .debug : .warning
}
