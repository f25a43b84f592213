import ConcurrencyKit
@testable import MicroHTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``Posix``: each system call MicroHTTP makes, wrapped once; a failure is a typed error naming
/// the call (and the option) with its `errno`.
@Suite struct PosixTests {
    @Test func aFailedSocketOptionNamesTheOptionAndErrno() {
        #expect(throws: SystemCallError(call: "setsockopt(SO_SNDBUF)", code: EBADF)) {
            try Posix.setOption(-1, level: SOL_SOCKET, SO_SNDBUF, to: Int32(4_096), label: "SO_SNDBUF")
        }
        #expect(throws: SystemCallError(call: "shutdown", code: EBADF)) {
            try Posix.shutdownBoth(-1)
        }
    }

    @Test func aSocketOptionIsSetWithItsValue() throws {
        let socket = try Posix.openSocket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        defer { #expect(throws: Never.self) { try Posix.closeDescriptor(socket) } }
        try Posix.setOption(socket, level: SOL_SOCKET, SO_LINGER, to: linger(l_onoff: 1, l_linger: 0), label: "SO_LINGER")
        var read = linger()
        var length = socklen_t(MemoryLayout<linger>.size)
        #expect(getsockopt(socket, SOL_SOCKET, SO_LINGER, &read, &length) == 0)
        #expect(read.l_onoff == 1 && read.l_linger == 0)
        #expect(throws: SystemCallError(call: "shutdown", code: ENOTCONN)) {
            try Posix.shutdownBoth(socket)
        }
    }

    @Test func aFailedEpollCallNamesItsOperation() throws {
        let epoll = try Posix.epollCreate()
        defer { #expect(throws: Never.self) { try Posix.closeDescriptor(epoll) } }
        #expect(throws: SystemCallError(call: "epoll_ctl(DEL)", code: EBADF)) {
            try Posix.epollRemove(epoll, -1)
        }
    }
}
