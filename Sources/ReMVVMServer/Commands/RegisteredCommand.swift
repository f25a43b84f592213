import ReMVVM

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
