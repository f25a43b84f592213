import ArgumentParser

/// `remvvm-server`: serves the store (the default: `remvvm-server --port 8080` is
/// `remvvm-server serve --port 8080`), or checks, repairs and copies its data directory.
@main
struct RemvvmServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remvvm-server",
        abstract: "Serves a ReMVVM store over HTTP; verify, repair and back up its journal.",
        subcommands: [ServeCommand.self, VerifyCommand.self, RepairCommand.self, BackupCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
