public import ReMVVM
import ReMVVMNavigation

/// Maps names (`/viewmodels/<name>`) to the `Encodable` view models the state's factory makes.
///
/// ```swift
/// var viewModels = ViewModelRegistry<AppState>()
/// viewModels.register(CounterViewModel.self, as: "counter")
/// viewModels.register(GreetingsViewModel.self, as: "greetings", commands: GreetingsViewModel.commands)
/// ```
///
/// View models that are also `Equatable` stream most cheaply: `GET /viewmodels/<name>/events`
/// compares each new one with the one before and encodes it only when it changed.
/// The name `events` is taken by `GET /viewmodels/events` (several view models on one stream).
public struct ViewModelRegistry<State: StoreState>: Sendable {
    /// Makes and encodes one view model from a state; nil when the state's factory makes none.
    typealias Render = @Sendable (State, String?) throws -> [UInt8]?
    /// Makes one view model from a state, kept for comparing; nil when the factory makes none.
    typealias Make = @Sendable (State, String?) -> ViewModelValue?

    /// Closures in structs of their own type (not generic): one kept as a dictionary's value is
    /// stored at the most general abstraction and wrapped in a new thunk (an allocation) each
    /// time it is taken out.
    private struct StoredRender: Sendable {
        let function: Render
    }

    private struct StoredMake: Sendable {
        let function: Make
    }

    private var renderers: [String: StoredRender] = [:]
    private var makers: [String: StoredMake] = [:]
    /// The commands of each view model that has any, by command name (`ViewModelRegistry+Commands.swift`).
    var commandSets: [String: [String: RegisteredCommand<State>]] = [:]
    /// The names of the tabs of the navigation registered with `registerNavigation(at:)` in a
    /// state (for the OpenAPI document's `navigation.selectTab`); nil without navigation.
    var navigationTabs: (@Sendable (State) -> [String])?
    /// The path `registerNavigation(at:)` was given: the navigation renders `top` from a copy of
    /// the registry, made again when a screen is registered after it (``refreshNavigation()``).
    var navigationPath: (any KeyPath<State, NavigationState> & Sendable)?

    /// Creates an empty registry.
    public init() {}

    /// Registers the view model type `type` under `name`; registering a name again replaces it.
    /// Its stream (`/viewmodels/<name>/events`) compares successive view models by their JSON.
    public mutating func register<ViewModel: Encodable & SendableMetatype>(_ type: ViewModel.Type, as name: String) {
        add(type, as: name) { .encodable($0) }
    }

    /// Registers the `Equatable` view model type `type` under `name`; registering a name again
    /// replaces it. Its stream compares successive view models with `==` and encodes one only
    /// when it changed.
    public mutating func register<ViewModel: Encodable & Equatable & SendableMetatype>(
        _ type: ViewModel.Type, as name: String
    ) {
        add(type, as: name) { .equatable($0) }
    }

    private mutating func add<ViewModel: Encodable & SendableMetatype>(
        _ type: ViewModel.Type,
        as name: String,
        value: @escaping @Sendable (ViewModel) -> ViewModelValue
    ) {
        commandSets[name] = nil
        // Straight from the factory, never subscribed: a view model that is a StateObserver
        // would otherwise be updated on the store's thread while this thread encodes it.
        renderers[name] = StoredRender(function: { state, key in
            guard let viewModel: ViewModel = state.factory.create(key: key) else { return nil }
            return try JSONCoding.encode(viewModel)
        })
        makers[name] = StoredMake(function: { state, key in
            guard let viewModel: ViewModel = state.factory.create(key: key) else { return nil }
            return value(viewModel)
        })
        refreshNavigation()
    }

    /// Registers, under `name`, a view model the service renders itself from a state (and a
    /// key): nil when not available. Its stream compares successive ones by their JSON.
    mutating func register(named name: String, render: @escaping Render) {
        commandSets[name] = nil
        renderers[name] = StoredRender(function: render)
        makers[name] = StoredMake(function: { state, key in
            do {
                return try render(state, key).map(ViewModelValue.json)
            } catch {
                return .failing(error)
            }
        })
    }

    /// The registered names, sorted.
    public var names: [String] {
        renderers.keys.sorted()
    }

    func renderer(named name: String) -> Render? {
        renderers[name]?.function
    }

    func maker(named name: String) -> Make? {
        makers[name]?.function
    }
}
