#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed: which one, and the `errno` it left.
///
/// Made by ``systemCall(_:_:)``, which every wrapped call goes through (MicroHTTP's `Posix`,
/// ``Doorbell``), in the way of swift-nio's `syscall(blocking:where:_:)`.
package struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call and what it was for, e.g. `setsockopt(SO_SNDBUF)`.
    package let call: String
    /// The `errno` the call left.
    package let code: Int32

    /// A failure of `call` with `code`.
    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// Whether the call found nothing to do without blocking (`EAGAIN` / `EWOULDBLOCK`).
    package var wouldBlock: Bool {
        code == EAGAIN || code == EWOULDBLOCK
    }

    /// The call and the system's text for the error, e.g. `shutdown failed: Bad file descriptor
    /// (errno 9)`.
    package var description: String {
        "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Runs `body`, a system call returning -1 and setting `errno` on failure, again while it is
/// interrupted by a signal (`EINTR`); any other failure is thrown. Not for `close`, which must
/// not be repeated after `EINTR` on Linux (the descriptor is already released).
@discardableResult
package func systemCall<Result: BinaryInteger>(
    _ call: @autoclosure () -> String,
    _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 {
            return result
        }
        let code = errno
        if code != EINTR {
            throw SystemCallError(call: call(), code: code)
        }
    }
}
