import ConcurrencyKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``systemCall(_:_:)``: a call interrupted by a signal is made again; any other failure is
/// thrown with the call's name and `errno`.
@Suite struct SystemCallTests {
    @Test func anInterruptedCallIsMadeAgain() throws {
        var calls = 0
        let result = try systemCall("test") { () -> Int in
            calls += 1
            guard calls == 3 else {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42)
        #expect(calls == 3)
    }

    @Test func anyOtherFailureIsThrownNamingTheCallAndErrno() {
        var calls = 0
        #expect(throws: SystemCallError(call: "shutdown", code: EBADF)) {
            try systemCall("shutdown") { () -> Int32 in
                calls += 1
                return shutdown(-1, Int32(SHUT_RDWR))
            }
        }
        #expect(calls == 1)
        #expect(SystemCallError(call: "shutdown", code: EBADF).description == "shutdown failed: Bad file descriptor (errno 9)")
        #expect(SystemCallError(call: "sendmsg", code: EAGAIN).wouldBlock)
    }
}
