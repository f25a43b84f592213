import ConcurrencyKit
import ExampleApp
import Foundation
import HTTPTestSupport
import ReMVVMClient
import Testing

/// The `remvvm-client` executable, run as a child process against a real server.
@Suite struct CommandLineToolTests {
    @Test func dispatchPrintsTheVersionAndStatePrintsTheState() async throws {
        let server = try TestServer()
        let dispatched = try ToolProcess(["--url", server.url.absoluteString, "dispatch", #"[{"type":"increase"},{"type":"increase"}]"#])
        #expect(try await dispatched.lines.wait(for: 1) == [#"{"version":2}"#])
        #expect(dispatched.waitForExit() == 0)
        let state = try ToolProcess(["--url", server.url.absoluteString, "state"])
        #expect(try await state.lines.wait(for: 1) == [#"{"version":2,"state":{"counter":2,"user":null}}"#])
    }

    @Test func aRefusedDispatchExitsWithTheServersProblem() async throws {
        let server = try TestServer()
        let tool = try ToolProcess(["--url", server.url.absoluteString, "dispatch", #"{"type":"jump"}"#])
        #expect(tool.waitForExit() == 1)
        #expect(tool.standardError.contains("422") && tool.standardError.contains("jump"))
    }

    @Test func watchPrintsEveryVersionOnceAcrossAServerRestart() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let watch = try ToolProcess(["--url", server.url.absoluteString, "watch"])
        try await watch.lines.wait(for: 1)
        for _ in 1...5 { try await client.dispatch(Increase()) }
        try await watch.lines.wait(for: 6)
        try server.restart()
        for _ in 1...5 { try await client.dispatch(Decrease()) }
        let lines = try await watch.lines.wait(for: 11)
        let expected = (0...10).map { version in
            #"{"version":\#(version),"state":{"counter":\#(version <= 5 ? version : 10 - version),"user":null}}"#
        }
        #expect(lines == expected)
    }

    @Test func watchOfAViewModelPrintsNullWhileItIsUnavailable() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let watch = try ToolProcess(["--url", server.url.absoluteString, "watch", "--view-model", "greetings"])
        try await watch.lines.wait(for: 1)
        try await client.dispatch(Login(firstName: "Ada", lastName: "Lovelace"))
        let lines = try await watch.lines.wait(for: 2)
        #expect(lines == [#"{"version":0,"viewModel":null}"#, #"{"version":1,"viewModel":{"greetings":"Hello Ada Lovelace <3"}}"#])
    }
}

/// The built `remvvm-client`, run with arguments; its standard output is read line by line.
final class ToolProcess: Sendable {
    private let process: Process
    /// The lines it printed.
    let lines: Collector<String>
    private let errorText = Lock("")

    init(_ arguments: [String]) throws {
        let (process, output, error) = BuiltExecutable.process("remvvm-client", arguments: arguments)
        try process.run()
        self.process = process
        lines = Collector(Self.lines(of: output.fileHandleForReading))
        let errorText = self.errorText
        Thread {
            while case let data = error.fileHandleForReading.availableData, !data.isEmpty {
                errorText.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// The lines read from `handle` on a thread of their own, until it closes.
    private static func lines(of handle: FileHandle) -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream<String>.makeStream()
        Thread {
            var pending: [UInt8] = []
            while case let data = handle.availableData, !data.isEmpty {
                pending += data
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[..<end], as: UTF8.self))
                    pending.removeSubrange(...end)
                }
            }
            continuation.finish()
        }.start()
        return lines
    }

    /// What it wrote to standard error so far.
    var standardError: String {
        errorText.withLock { $0 }
    }

    /// Waits for the tool to end and returns its exit status.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}
