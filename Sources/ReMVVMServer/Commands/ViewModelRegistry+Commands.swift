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

/// A view-model command with its view-model type erased: it makes the view model from a state
/// itself.
struct RegisteredCommand<State: StoreState>: Sendable {
    /// What a command gives for a state.
    enum Outcome {
        /// The actions to dispatch.
        case actions([any StoreAction])
        /// The state's factory makes no such view model (for this key).
        case unavailable
    }

    /// Runs the command, once its body decoded, on the view model a state's factory makes for a key.
    typealias Bound = @Sendable (_ state: State, _ key: String?, _ services: Services) throws -> Outcome

    let name: String
    /// The type the body decodes into.
    let bodyType: any (Decodable & Sendable).Type
    /// Decodes a body (400 or 422 when it cannot) into the command's run.
    let bind: @Sendable ([UInt8]) throws(ActionDecodingError) -> Bound

    init<ViewModel: SendableMetatype>(_ command: ViewModelCommand<ViewModel>) {
        name = command.name
        bodyType = command.bodyType
        bind = { [bind = command.bind] bytes throws(ActionDecodingError) in
            let run = try bind(bytes)
            return { state, key, services in
                // Straight from the factory, never subscribed, as GET /viewmodels/<name> makes it.
                guard let viewModel: ViewModel = state.factory.create(key: key) else { return .unavailable }
                return .actions(try run(viewModel, services))
            }
        }
    }
}
