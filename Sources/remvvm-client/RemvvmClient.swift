import ArgumentParser
import Foundation
import ReMVVMClient

/// `remvvm-client`: the ReMVVM API from a shell, like `redis-cli` for Redis.
@main
struct RemvvmClient: AsyncParsableCommand {
    /// Runs the tool. `--url` and `--token` may come before the subcommand
    /// (`remvvm-client --url U watch`) as well as after it.
    static func main() async {
        await main(ServerOptions.movingGlobalOptions(in: Array(CommandLine.arguments.dropFirst())))
    }

    static let configuration = CommandConfiguration(
        commandName: "remvvm-client",
        abstract: "Dispatch actions to a ReMVVM server, read its state, watch it change.",
        discussion: """
            Examples:
              remvvm-client --url http://127.0.0.1:8080 dispatch '{"type":"increase"}'
              remvvm-client --url http://127.0.0.1:8080/stores/room-1 state
              remvvm-client --url http://127.0.0.1:8080 watch
              remvvm-client --url http://127.0.0.1:8080 watch --view-model greetings
            The token may also come from REMVVM_TOKEN.
            """,
        subcommands: [Dispatch.self, ReadState.self, Watch.self]
    )
}

/// The options every subcommand takes.
struct ServerOptions: ParsableArguments {
    @Option(help: "The store's base URL: http://host:port, or http://host:port/stores/{id}.")
    var url: String

    @Option(help: "An access token, sent as Authorization: Bearer (default: $REMVVM_TOKEN).")
    var token: String?

    /// `arguments` with `--url`/`--token` (and their values) that precede the subcommand moved
    /// after it, where ArgumentParser reads a subcommand's options.
    static func movingGlobalOptions(in arguments: [String]) -> [String] {
        var global: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--") {
            let name = first.split(separator: "=", maxSplits: 1)[0]
            guard name == "--url" || name == "--token" else { break }
            global.append(first)
            rest = rest.dropFirst()
            if !first.contains("="), let value = rest.first {
                global.append(value)
                rest = rest.dropFirst()
            }
        }
        guard let subcommand = rest.first else { return arguments }
        return [subcommand] + global + rest.dropFirst()
    }

    /// A client of the store the options name.
    func client() throws -> ReMVVMClient {
        try ReMVVMClient(url: url, token: token ?? ProcessInfo.processInfo.environment["REMVVM_TOKEN"])
    }
}

/// Writes `bytes` and a line feed to standard output at once (no buffering: `watch` is read live
/// through pipes).
func writeLine(_ bytes: [UInt8]) {
    FileHandle.standardOutput.write(Data(bytes + [UInt8(ascii: "\n")]))
}

/// Runs `body`; a ``ClientError`` is printed to standard error and ends the tool with status 1.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ClientError {
        FileHandle.standardError.write(Data("remvvm-client: \(error.message)\n".utf8))
        throw ExitCode.failure
    }
}
