import ArgumentParser
import ConcurrencyKit

/// The entry point of a server for an application's own domain: everything `remvvm-server` does
/// (which is the example domain run through it), for any ``Domain``.
///
/// An executable's whole `main.swift`:
///
/// ```swift
/// import ReMVVMServerCommand
///
/// await ReMVVMServerCommand.main(TodoApp.domain)
/// ```
///
/// Its subcommands: `serve` (the default: `todo-server --port 8080` is `todo-server serve --port
/// 8080`), with every setting from a flag, a `REMVVM_*` variable or the config file (`--help` lists
/// them); SIGINT or SIGTERM stop it gracefully.
public enum ReMVVMServerCommand {
    /// Parses the process's arguments, runs the command they name for `domain`, and exits: 0 when
    /// it succeeded, 64 with a message for a bad flag or setting, 1 when the server could not
    /// start or failed.
    public static func main<State>(_ domain: Domain<State>) async -> Never {
        do {
            try await run(domain, arguments: Array(CommandLine.arguments.dropFirst()))
            ServerRootCommand.exit()
        } catch {
            ServerRootCommand.exit(withError: error)
        }
    }

    /// Parses `arguments` (without the executable's name) and runs the command they name for
    /// `domain`; throws what ArgumentParser's `exit(withError:)` turns into a message and a status
    /// (a request for help is a `CleanExit`).
    public static func run<State>(_ domain: Domain<State>, arguments: [String]) async throws {
        ServerRootCommand.name.withLock { $0 = domain.name }
        var command = try ServerRootCommand.parseAsRoot(arguments)
        switch command {
        case let domainCommand as any DomainCommand:
            try await domainCommand.run(domain: domain)
        case var asyncCommand as any AsyncParsableCommand:
            // A subcommand that needs no domain (or the root alone, which asks for help).
            try await asyncCommand.run()
        default:
            try command.run()
        }
    }
}
