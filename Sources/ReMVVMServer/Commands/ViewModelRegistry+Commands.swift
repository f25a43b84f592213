import ReMVVM

extension ViewModelRegistry {
    /// Registers the view model type `type` under `name`, with the commands it takes
    /// (`POST /viewmodels/<name>/commands/<command>`); registering a name again replaces it and
    /// its commands. Of two commands with one name, the last counts.
    public mutating func register<ViewModel: Encodable & SendableMetatype>(
        _ type: ViewModel.Type,
        as name: String,
        commands: [ViewModelCommand<ViewModel>]
    ) {
        register(type, as: name)
        setCommands(commands, of: name)
    }

    /// Registers the `Equatable` view model type `type` under `name` with its commands; its
    /// stream compares successive view models with `==`.
    public mutating func register<ViewModel: Encodable & Equatable & SendableMetatype>(
        _ type: ViewModel.Type,
        as name: String,
        commands: [ViewModelCommand<ViewModel>]
    ) {
        register(type, as: name)
        setCommands(commands, of: name)
    }

    private mutating func setCommands<ViewModel: Encodable & SendableMetatype>(_ commands: [ViewModelCommand<ViewModel>], of name: String) {
        var set: [String: RegisteredCommand<State>] = [:]
        for command in commands {
            set[command.name] = RegisteredCommand(command)
        }
        commandSets[name] = set
    }

    /// The command names of every registered view model, sorted (an empty list for one without
    /// commands).
    public var commandNames: [String: [String]] {
        var names: [String: [String]] = [:]
        for name in self.names {
            names[name] = commandSets[name].map { $0.keys.sorted() } ?? []
        }
        return names
    }

    /// The command `command` of the view model `name`, if both are registered.
    func command(_ command: String, of name: String) -> RegisteredCommand<State>? {
        commandSets[name]?[command]
    }

    /// Every registered command, by view-model name then command name.
    var allCommands: [(viewModel: String, command: RegisteredCommand<State>)] {
        commandSets.keys.sorted().flatMap { name in
            (commandSets[name] ?? [:]).values.sorted { $0.name < $1.name }.map { (name, $0) }
        }
    }
}
