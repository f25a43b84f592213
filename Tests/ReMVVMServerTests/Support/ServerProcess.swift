import ConcurrencyKit
import Foundation
import HTTPTestSupport

/// The built `remvvm-server` executable, run as a child process on a free port.
final class ServerProcess {
    let process = Process()
    let port: Int
    /// The data directory it was given (a fresh temporary one unless the arguments name one or
    /// ask for `--in-memory`); removed at deinit when the test did not bring its own.
    let dataDirectory: String?
    private let ownsDataDirectory: Bool
    private let errorPipe = Pipe()
    private let errorText = ErrorText()

    /// Starts the binary with `arguments` (plus `--port 0`) and waits for its "listening on" line.
    init(arguments: [String] = [], environment: [String: String] = [:], dataDirectory: String? = nil) throws {
        var arguments = arguments
        if arguments.contains("--in-memory") || arguments.contains("--data-dir") {
            self.dataDirectory = nil
            ownsDataDirectory = false
        } else if let dataDirectory {
            self.dataDirectory = dataDirectory
            ownsDataDirectory = false
            arguments += ["--data-dir", dataDirectory]
        } else {
            let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-process-\(UUID().uuidString)").path
            self.dataDirectory = fresh
            ownsDataDirectory = true
            arguments += ["--data-dir", fresh]
        }
        process.executableURL = BuiltExecutable.url("remvvm-server")
        process.arguments = ["--port", "0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let (port, startText) = try Self.readPort(from: errorPipe.fileHandleForReading, of: process)
        self.port = port
        errorText.append(startText)
        // Keep draining stderr so the server never blocks on a full pipe; its text explains failures.
        let handle = errorPipe.fileHandleForReading
        let text = errorText
        Thread {
            while case let data = handle.availableData, !data.isEmpty {
                text.append(String(decoding: data, as: UTF8.self))
            }
        }.start()
    }

    /// What the server wrote to stderr so far (its log, and a crash report if it crashed).
    var standardError: String {
        errorText.value
    }

    deinit {
        defer {
            if ownsDataDirectory, let dataDirectory {
                try? FileManager.default.removeItem(atPath: dataDirectory)
            }
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Sends `signal` and waits up to `timeout` for the exit; nil if it is still running then.
    func stop(with signal: Int32, timeout: TimeInterval) -> (status: Int32, seconds: TimeInterval)? {
        let started = Date()
        kill(process.processIdentifier, signal)
        let exited = Lock(false)
        let waiter = Thread { [process] in
            process.waitUntilExit()
            exited.withLock { $0 = true }
            exited.notifyAll()
        }
        waiter.start()
        guard exited.wait(timeout: .milliseconds(Int(timeout * 1000)), until: { $0 }) else { return nil }
        return (process.terminationStatus, Date().timeIntervalSince(started))
    }

    /// How long a start may take before the test gives up on it (a debug build on a busy machine
    /// starts in well under a second; a hang must fail the test, not the whole run).
    static let startTimeout: Duration = .seconds(60)

    /// Reads stderr until the "listening on" line; throws when the server exits first (with its
    /// exit status) or does not listen within ``startTimeout`` (it is then killed).
    private static func readPort(from handle: FileHandle, of process: Process) throws(ServerProcessError) -> (Int, String) {
        let deadline = ContinuousClock.now + startTimeout
        var text = ""
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                process.terminate()
                process.waitUntilExit()
                throw ServerProcessError(message: "remvvm-server did not listen within \(startTimeout): \(text)", exitStatus: nil)
            }
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(min(1_000, remaining / .milliseconds(1)))) > 0 else { continue }
            let data = handle.availableData
            guard !data.isEmpty else {
                process.waitUntilExit()
                throw ServerProcessError(message: "remvvm-server exited before listening: \(text)", exitStatus: process.terminationStatus)
            }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits), text[range.upperBound...].dropFirst(digits.count).first?.isNewline == true {
                    return (port, text)
                }
            }
        }
    }
}

/// A server that did not start: what it wrote, and its exit status if it exited.
struct ServerProcessError: Error, CustomStringConvertible {
    let message: String
    /// nil when it was killed for not listening in time.
    let exitStatus: Int32?

    var description: String {
        message + (exitStatus.map { " (exit status \($0))" } ?? "")
    }
}

/// Text appended from one thread and read from another.
final class ErrorText: Sendable {
    private let text = Lock("")

    func append(_ more: String) {
        text.withLock { $0 += more }
    }

    var value: String {
        text.withLock { $0 }
    }
}
