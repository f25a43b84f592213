import ArgumentParser

/// A subcommand of a domain's executable (`serve`, and those that read its data directory): parsed
/// by ArgumentParser, then run with the domain ``ReMVVMServerCommand/main(_:)`` was given, since a
/// command's reducers, actions and state type are the domain's, not the command's.
///
/// Add one by listing its type in ``ServerRootCommand``'s subcommands.
protocol DomainCommand: ParsableCommand {
    /// Does the command's work for `domain`; throw `ExitCode` to exit with a status.
    func run<State>(domain: Domain<State>) async throws
}

extension DomainCommand {
    /// Never called: ``ReMVVMServerCommand/run(_:arguments:)`` calls ``run(domain:)`` instead.
    /// ArgumentParser requires a `run()`; this one says what went wrong if it is reached.
    func run() throws {
        throw ValidationError("this command needs its domain: run it through ReMVVMServerCommand.main")
    }
}
