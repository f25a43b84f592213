internal import CMicroHTTPD
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `MHD_LogCallback`: libmicrohttpd's diagnostics, formatted and sent to the server's logger.
func daemonLog(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let message = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer -> String in
        guard let base = buffer.baseAddress else { return "" }
        guard vsnprintf(base, buffer.count, format, arguments) >= 0 else { return String(cString: format) }
        return String(cString: base)
    }
    var trimmed = Substring(message)
    while let last = trimmed.last, last.isNewline || last == " " {
        trimmed.removeLast()
    }
    server.logger.log(level: daemonLogLevel(for: trimmed), "libmicrohttpd: \(trimmed)")
}

/// Messages about what a client did (malformed requests, disconnects, streams we ended on
/// purpose) are routine: debug. Everything else (limits reached, system call failures) is a
/// warning.
private func daemonLogLevel(for message: Substring) -> Logger.Level {
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
    return routine.contains { message.hasPrefix($0) } ? .debug : .warning
}
