import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A throwaway PostgreSQL server for tests: `initdb` in a fresh temporary directory, `postgres`
/// listening on a unix socket only (no TCP), stopped by PID in ``stop()`` (or when the instance
/// goes away) and its directory removed.
///
/// `initdb` and `postgres` refuse to run as root: as root they run as the `postgres` user through
/// `runuser -u postgres --`, and the directory is given to that user. The binaries are Debian's
/// (`/usr/lib/postgresql/<major>/bin`, package `postgresql`); when they are missing the server
/// throws naming the package — `scripts/test.sh` installs it, a test never skips silently.
public final class PostgresServer {
    /// The directory holding `data/`, the socket and `server.log`.
    public let directory: String
    /// The directory of the unix socket (pass it as `host`).
    public var socketDirectory: String { directory }
    /// The socket's port number (part of the socket file's name).
    public let port = 5432
    /// A libpq connection string for the `postgres` database as the `postgres` user. Its connect
    /// timeout is generous: with the whole suite running on two cores a connection once took more
    /// than 5 s (`PostgresLogPlanTests`, 2026-12-01); a server that is down still fails in 15.
    public var conninfo: String { "host=\(directory) port=\(port) user=postgres dbname=postgres connect_timeout=15" }

    private let binaries: String
    private let asRoot: Bool
    // Not Sendable: only the test that owns the server touches it (pass `conninfo` to threads).
    private var process: Process?
    private var pid: pid_t?

    /// Creates the cluster and starts the server; returns once it accepts connections.
    public init() throws {
        binaries = try Self.findBinaries()
        asRoot = getuid() == 0
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            if asRoot {
                guard let user = getpwnam("postgres") else {
                    throw PostgresServerError("no user named postgres: install the postgresql package (scripts/install-deps.sh postgresql)")
                }
                guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                    throw PostgresServerError("chown \(directory) to postgres failed (errno \(errno))")
                }
            }
            try runToCompletion("initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
            try start()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server on the existing cluster (after ``stop()``, to simulate a restart) and
    /// waits until it accepts connections (polling `pg_isready`, 30 s at most).
    public func start() throws {
        guard process == nil else { return }
        let process = try launch("postgres", [
            "-D", directory + "/data", "-k", directory, "-p", String(port), "-c", "listen_addresses=",
            "-c", "fsync=off", "-c", "max_connections=200",
        ], log: directory + "/server.log")
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while true {
            if !process.isRunning {
                self.process = nil
                throw PostgresServerError("postgres exited with status \(process.terminationStatus): \(serverLog())")
            }
            if (try? runToCompletion("pg_isready", ["-q", "-h", directory, "-p", String(port), "-t", "1"])) != nil {
                break
            }
            guard Date() < deadline else {
                throw PostgresServerError("postgres did not accept connections within 30 s: \(serverLog())")
            }
            usleep(20_000)  // between readiness polls (each pg_isready is itself bounded by -t 1)
        }
        pid = try readPostmasterPID()
    }

    /// Stops the server by its PID (fast shutdown: SIGINT) and waits for it to exit.
    public func stop() {
        guard let process else { return }
        if let pid { kill(pid, SIGINT) } else { process.interrupt() }
        process.waitUntilExit()
        self.process = nil
        pid = nil
    }

    /// The server's log so far (for failure messages).
    public func serverLog() -> String {
        (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)).map { String($0.suffix(2_000)) } ?? "(no log)"
    }

    private func readPostmasterPID() throws -> pid_t {
        let text = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let value = pid_t(line) else {
            throw PostgresServerError("cannot read the PID in \(directory)/data/postmaster.pid")
        }
        return value
    }

    private func launch(_ tool: String, _ arguments: [String], log: String?) throws -> Process {
        let process = Process()
        if asRoot {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", binaries + "/" + tool] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binaries + "/" + tool)
            process.arguments = arguments
        }
        if let log {
            guard FileManager.default.createFile(atPath: log, contents: nil) else {
                throw PostgresServerError("cannot create \(log)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    @discardableResult
    private func runToCompletion(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let output = directory + "/\(tool).log"
        let process = try launch(tool, arguments, log: output)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PostgresServerError("\(tool) \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
        }
        return process.terminationStatus
    }

    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/postgres") {
            return "\(root)/\(version)/bin"
        }
        throw PostgresServerError("PostgreSQL server binaries not found under \(root)/*/bin: install Debian's postgresql package (scripts/install-deps.sh postgresql; scripts/test.sh does)")
    }
}

/// Why the test PostgreSQL server could not be set up.
public struct PostgresServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
