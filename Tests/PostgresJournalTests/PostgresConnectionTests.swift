import Dispatch
import Foundation
@testable import PostgresJournal
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Connecting to a PostgreSQL host that stopped answering fails after a timeout instead of
/// waiting for ever (libpq's default): the replica's threads, its renewals and a clean stop
/// connect, and must not hang on it.
@Suite struct PostgresConnectionTests {
    /// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes the
    /// handshakes into its backlog, and what a client sends there is never read or answered.
    private final class SilentListener {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 16) == 0
                        && getsockname(descriptor, socketAddress, &length) == 0
                }
            }
            guard bound else {
                close(descriptor)
                throw POSIXError(.EADDRINUSE)
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    /// Connects with `conninfo` on a thread of its own and waits up to `limit` for the outcome:
    /// the error and how long the attempt took, or nil if it did not end in time.
    private func attempt(_ conninfo: String, within limit: Duration) -> (error: PostgresLogError?, took: Duration)? {
        let outcome = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let started = ContinuousClock.now
            do throws(PostgresLogError) {
                let connection = try PostgresConnection(conninfo: conninfo)
                connection.close()
                outcome.set(nil, ContinuousClock.now - started)
            } catch {
                outcome.set(error, ContinuousClock.now - started)
            }
            done.signal()
        }
        thread.start()
        let seconds = Double(limit.components.seconds)
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return outcome.get()
    }

    private final class OutcomeBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (PostgresLogError?, Duration)?
        func set(_ error: PostgresLogError?, _ took: Duration) { lock.withLock { value = (error, took) } }
        func get() -> (error: PostgresLogError?, took: Duration)? { lock.withLock { value.map { (error: $0.0, took: $0.1) } } }
    }

    @Test func aHostThatNeverAnswersFailsAfterTheDefaultTimeout() throws {
        try #require(getenv("PGCONNECT_TIMEOUT") == nil, "the default applies only without PGCONNECT_TIMEOUT")
        let listener = try SilentListener()
        let outcome = try #require(
            attempt("host=127.0.0.1 port=\(listener.port) user=nobody dbname=nothing", within: .seconds(60)),
            "the attempt still hangs after a minute"
        )
        #expect(outcome.error?.code == .unavailable, "\(String(describing: outcome.error))")
        let timeout = Duration.seconds(PostgresConnection.defaultConnectTimeoutSeconds)
        #expect(outcome.took >= timeout - .seconds(1) && outcome.took < timeout * 3, "\(outcome.took)")
    }

    @Test func aConnectTimeoutInTheConnectionStringWins() throws {
        let listener = try SilentListener()
        for conninfo in [
            "host=127.0.0.1 port=\(listener.port) user=nobody dbname=nothing connect_timeout=2",
            "postgresql://nobody@127.0.0.1:\(listener.port)/nothing?connect_timeout=2",
        ] {
            let outcome = try #require(attempt(conninfo, within: .seconds(60)), "\(conninfo): still hangs after a minute")
            #expect(outcome.error?.code == .unavailable, "\(conninfo): \(String(describing: outcome.error))")
            #expect(outcome.took >= .seconds(1) && outcome.took < .seconds(PostgresConnection.defaultConnectTimeoutSeconds - 2), "\(conninfo): \(outcome.took)")
        }
    }
}
