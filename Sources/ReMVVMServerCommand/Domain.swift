public import ReMVVM
public import ReMVVMServer

/// An application's own domain, everything the server needs to serve it: the state type and its
/// initial value, the root reducer, the actions clients may send, the view models and their
/// commands, the middleware and the services they use.
///
/// Hand it to ``ReMVVMServerCommand/main(_:)`` and it gets all that `remvvm-server` has: settings
/// from flags, `REMVVM_*` variables and the config file, the SQLite journal, PostgreSQL replicas,
/// tokens and JWTs, CORS, metrics, the OpenAPI document, the inspector and graceful shutdown.
///
/// ```swift
/// let domain = Domain(
///     name: "todo-server",
///     initialState: TodoState(),
///     reducer: TodoReducer.self,
///     actions: TodoApp.actions,
///     viewModels: TodoApp.viewModels
/// )
/// await ReMVVMServerCommand.main(domain)
/// ```
public struct Domain<State: StoreState & Codable>: Sendable {
    /// The executable's name: the command in `--help`, the label of its log lines, and the
    /// default config file `Config/<name>.json`.
    public var name: String
    /// The state a store starts from when its journal is empty (version 0).
    public var initialState: State
    /// The wire names of the actions `POST /actions` accepts, with their payload types.
    public var actions: ActionRegistry
    /// The view models served at `/viewmodels/<name>`, with their commands.
    public var viewModels: ViewModelRegistry<State>
    /// At most one mapper per substate type, for typed middleware and observers.
    public var stateMappers: [StateMapper<State>]
    /// The dependencies of the middleware and of view-model commands (a clock, …); the production
    /// ones by default.
    public var services: Services
    /// The middleware, in the order they run, made from ``services``.
    public var middleware: @Sendable (Services) -> [any AnyMiddleware]
    /// The root reducer: what a dispatch reduces with, and what a journal replays with.
    public let reduce: @Sendable (State, any StoreAction) -> State
    private let makeStore: @Sendable (State, [any AnyMiddleware], [StateMapper<State>], Services) throws -> Store<State>

    /// Describes a domain.
    /// - Parameters:
    ///   - name: the executable's name (``name``).
    ///   - initialState: the state of version 0.
    ///   - reducer: the root reducer of every action.
    ///   - actions: the wire names of the actions clients may send.
    ///   - viewModels: the view models and their commands; none by default.
    ///   - stateMappers: the substates typed middleware and observers use; none by default.
    ///   - middleware: the middleware made from the services; none by default.
    ///   - services: the dependencies of middleware and commands; the production ones by default.
    public init<R: Reducer>(
        name: String,
        initialState: State,
        reducer: R.Type,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State> = ViewModelRegistry(),
        stateMappers: [StateMapper<State>] = [],
        middleware: @escaping @Sendable (Services) -> [any AnyMiddleware] = { _ in [] },
        services: Services = Services()
    ) where R.State == State, R: SendableMetatype {
        self.name = name
        self.initialState = initialState
        self.actions = actions
        self.viewModels = viewModels
        self.stateMappers = stateMappers
        self.middleware = middleware
        self.services = services
        reduce = { state, action in R.reduce(state: state, withAny: action) }
        makeStore = { state, middleware, mappers, services in
            try Store(state: state, reducer: reducer, middleware: middleware, stateMappers: mappers, services: services)
        }
    }

    /// A store of this domain at its initial state, with its middleware, mappers and services: the
    /// store the server restores from its journal and serves.
    /// - Throws: `StoreConfigurationError` when the mappers and middleware do not fit.
    public func store() throws -> Store<State> {
        try makeStore(initialState, middleware(services), stateMappers, services)
    }
}
