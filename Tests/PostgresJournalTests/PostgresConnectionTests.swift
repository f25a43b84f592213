import Dispatch
import Foundation
@testable import PostgresJournal
import PostgresTestSupport
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

    @Test(.enabled(if: getenv("PGCONNECT_TIMEOUT") == nil && getenv("PGSERVICE") == nil, "the environment sets the timeout instead"))
    func aHostThatNeverAnswersFailsAfterTheDefaultTimeout() throws {
        let listener = try SilentListener()
        let outcome = try #require(
            attempt("host=127.0.0.1 port=\(listener.port) user=nobody dbname=nothing", within: .seconds(60)),
            "the attempt still hangs after a minute"
        )
        #expect(outcome.error?.code == .unavailable, "\(String(describing: outcome.error))")
        #expect(outcome.took >= .seconds(9) && outcome.took < .seconds(30), "\(outcome.took)")
    }

    @Test func aConnectTimeoutInTheConnectionStringWins() throws {
        let listener = try SilentListener()
        for conninfo in [
            "host=127.0.0.1 port=\(listener.port) user=nobody dbname=nothing connect_timeout=2",
            "postgresql://nobody@127.0.0.1:\(listener.port)/nothing?connect_timeout=2",
        ] {
            let outcome = try #require(attempt(conninfo, within: .seconds(60)), "\(conninfo): still hangs after a minute")
            #expect(outcome.error?.code == .unavailable, "\(conninfo): \(String(describing: outcome.error))")
            #expect(outcome.took >= .seconds(1) && outcome.took < .seconds(8), "\(conninfo): \(outcome.took)")
        }
    }

    /// The defaults give way to what the connection string says, to a service file (which libpq
    /// reads only for parameters given nowhere else) and to `PGCONNECT_TIMEOUT`.
    @Test(.enabled(if: getenv("PGSERVICE") == nil, "a service file decides instead"))
    func theDefaultsGiveWayToTheConnectionStringAServiceFileAndTheEnvironment() throws {
        let none: (String) -> String? = { _ in nil }
        let all = PostgresConnection.defaultParameters.map(\.keyword)
        #expect(all == ["connect_timeout", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout"])
        #expect(PostgresConnection.defaults(for: "host=db", environment: none).map(\.keyword) == all)
        #expect(PostgresConnection.defaults(for: "", environment: { $0 == "PGCONNECT_TIMEOUT" ? "3" : nil }).map(\.keyword) == Array(all.dropFirst()))
        #expect(PostgresConnection.defaults(for: "service=prod", environment: none).isEmpty)
        #expect(PostgresConnection.defaults(for: "postgresql:///app?service=prod", environment: none).isEmpty)
        #expect(PostgresConnection.defaults(for: "", environment: { $0 == "PGSERVICE" ? "prod" : nil }).isEmpty)

        // On a real connection: the defaults are in effect, and a value in the string wins.
        let server = try PostgresServer()
        let plain = try PostgresConnection(conninfo: server.conninfo)
        defer { plain.close() }
        #expect(plain.parameter("keepalives_idle") == "10" && plain.parameter("tcp_user_timeout") == "30000")
        #expect(plain.parameter("connect_timeout") == "15", "the test server's string sets its own")
        let tuned = try PostgresConnection(conninfo: server.conninfo + " keepalives_idle=20")
        defer { tuned.close() }
        #expect(tuned.parameter("keepalives_idle") == "20" && tuned.parameter("keepalives_count") == "3")
        #expect(try tuned.execute("SELECT 1").rows == [["1"]])
    }
}
