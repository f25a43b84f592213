public import ReMVVM

/// Maps names (`/viewmodels/<name>`) to the `Encodable` view models the state's factory makes.
///
/// ```swift
/// var viewModels = ViewModelRegistry<AppState>()
/// viewModels.register(CounterViewModel.self, as: "counter")
/// viewModels.register(GreetingsViewModel.self, as: "greetings", commands: GreetingsViewModel.commands)
/// ```
public struct ViewModelRegistry<State: StoreState>: Sendable {
    /// Makes and encodes one view model from a state; nil when the state's factory makes none.
    typealias Render = @Sendable (State, String?) throws -> [UInt8]?

    private var renderers: [String: Render] = [:]
    /// The commands of each view model that has any, by command name (`ViewModelRegistry+Commands.swift`).
    var commandSets: [String: [String: RegisteredCommand<State>]] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Registers the view model type `type` under `name`; registering a name again replaces it.
    public mutating func register<ViewModel: Encodable & SendableMetatype>(_ type: ViewModel.Type, as name: String) {
        commandSets[name] = nil
        renderers[name] = { state, key in
            // Straight from the factory, never subscribed: a view model that is a StateObserver
            // would otherwise be updated on the store's thread while this thread encodes it.
            guard let viewModel: ViewModel = state.factory.create(key: key) else { return nil }
            return try JSONCoding.encode(viewModel)
        }
    }

    /// The registered names, sorted.
    public var names: [String] {
        renderers.keys.sorted()
    }

    func renderer(named name: String) -> Render? {
        renderers[name]
    }
}
