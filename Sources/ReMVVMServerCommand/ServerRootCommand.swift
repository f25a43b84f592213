import ArgumentParser
import ConcurrencyKit

/// The executable's root command: its subcommands — `serve` the default, so that
/// `remvvm-server --port 8080` serves as `remvvm-server serve --port 8080` does — and `verify`,
/// `repair` and `backup` of a data directory's journal.
struct ServerRootCommand: ParsableCommand {
    /// The name in usage lines and `--help`: the running domain's ``Domain/name``, set by
    /// ``ReMVVMServerCommand/run(_:arguments:)`` before parsing (ArgumentParser reads a command's
    /// configuration from a static property, so the name cannot come from an instance).
    static let name = Lock("remvvm-server")

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: name.withLock { $0 },
            abstract: ServeCommand.abstract,
            discussion: "Without a subcommand it serves: `\(name.withLock { $0 }) --port 8080` is `\(name.withLock { $0 }) serve --port 8080`. "
                + "`\(name.withLock { $0 }) serve --help` lists every setting with its flag, its REMVVM_* variable and its default.",
            subcommands: [ServeCommand.self, VerifyCommand.self, RepairCommand.self, BackupCommand.self],
            defaultSubcommand: ServeCommand.self
        )
    }
}
