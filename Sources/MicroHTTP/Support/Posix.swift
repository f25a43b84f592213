internal import CMicroHTTPD
import ConcurrencyKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every system call MicroHTTP makes itself, wrapped once (swift-nio's `System.swift` shape):
/// a failure is thrown as a ``SystemCallError`` naming the call, a call interrupted by a signal
/// is made again (``systemCall(_:_:)``), and each caller decides what a failure means for it.
/// libmicrohttpd's own calls are its business; the eventfd doorbell is ConcurrencyKit's
/// ``Doorbell``.
enum Posix {
    // MARK: Sockets

    /// `socket(2)`.
    static func openSocket(family: Int32, type: Int32) throws(SystemCallError) -> Int32 {
        try systemCall("socket") { socket(family, type, 0) }
    }

    /// `setsockopt(2)` with an option value of type `Value` (`Int32`, `linger`); `label` names
    /// the option in the error.
    static func setOption<Value: BitwiseCopyable>(
        _ socket: Int32, level: Int32, _ name: Int32, to value: Value, label: String
    ) throws(SystemCallError) {
        try withUnsafeBytes(of: value) { bytes throws(SystemCallError) -> Void in
            try systemCall("setsockopt(\(label))") {
                setsockopt(socket, level, name, bytes.baseAddress, socklen_t(bytes.count))
            }
        }
    }

    /// `bind(2)`.
    static func bindSocket(_ socket: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) throws(SystemCallError) {
        try systemCall("bind") { bind(socket, address, length) }
    }

    /// `listen(2)`.
    static func startListening(_ socket: Int32, backlog: Int32) throws(SystemCallError) {
        try systemCall("listen") { listen(socket, backlog) }
    }

    /// `getsockname(2)` into `address` (of `capacity` bytes).
    static func localAddress(
        of socket: Int32, into address: UnsafeMutablePointer<sockaddr>, capacity: socklen_t
    ) throws(SystemCallError) {
        var length = capacity
        try systemCall("getsockname") { getsockname(socket, address, &length) }
    }

    /// `shutdown(2)` of both directions.
    static func shutdownBoth(_ socket: Int32) throws(SystemCallError) {
        try systemCall("shutdown") { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// `sendmsg(2)`; returns the bytes sent (`EAGAIN` is thrown, ``SystemCallError/wouldBlock``).
    static func send(_ socket: Int32, _ message: UnsafePointer<msghdr>, flags: Int32) throws(SystemCallError) -> Int {
        try systemCall("sendmsg") { sendmsg(socket, message, flags) }
    }

    /// `close(2)`, never repeated: on Linux the descriptor is released even when it reports
    /// `EINTR`, and closing again could close a descriptor another thread just opened.
    static func closeDescriptor(_ descriptor: Int32) throws(SystemCallError) {
        if close(descriptor) != 0 {
            let code = errno
            guard code != EINTR else { return }
            throw SystemCallError(call: "close", code: code)
        }
    }

    // MARK: epoll

    /// `epoll_create1(EPOLL_CLOEXEC)`.
    static func epollCreate() throws(SystemCallError) -> Int32 {
        try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// `epoll_ctl(2)` adding `socket` with `events` and `token`.
    static func epollAdd(_ epoll: Int32, _ socket: Int32, events: UInt32, token: UInt64) throws(SystemCallError) {
        var event = epoll_event(events: events, data: epoll_data_t(u64: token))
        try systemCall("epoll_ctl(ADD)") { epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) }
    }

    /// `epoll_ctl(2)` changing what `socket` is watched for.
    static func epollModify(_ epoll: Int32, _ socket: Int32, events: UInt32, token: UInt64) throws(SystemCallError) {
        var event = epoll_event(events: events, data: epoll_data_t(u64: token))
        try systemCall("epoll_ctl(MOD)") { epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) }
    }

    /// `epoll_ctl(2)` removing `socket`.
    static func epollRemove(_ epoll: Int32, _ socket: Int32) throws(SystemCallError) {
        try systemCall("epoll_ctl(DEL)") { epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil) }
    }

    /// `epoll_wait(2)` without a timeout, into `events`; returns how many are ready.
    static func epollWait(_ epoll: Int32, into events: UnsafeMutableBufferPointer<epoll_event>) throws(SystemCallError) -> Int {
        Int(try systemCall("epoll_wait") { epoll_wait(epoll, events.baseAddress, Int32(events.count), -1) })
    }

    // MARK: Limits

    /// `getrlimit(RLIMIT_NOFILE)`.
    static func openFileLimit() throws(SystemCallError) -> rlimit {
        var limit = rlimit()
        try systemCall("getrlimit(RLIMIT_NOFILE)") { getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
        return limit
    }

    /// `setrlimit(RLIMIT_NOFILE)`.
    static func setOpenFileLimit(_ limit: rlimit) throws(SystemCallError) {
        var limit = limit
        try systemCall("setrlimit(RLIMIT_NOFILE)") { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
    }
}
