public import ReMVVM

extension Store where State == AppState {
    /// The example app's store: initial state, root reducer, and the `counter` / `user` mappers,
    /// with exactly the middleware given (``ExampleApp/store(state:services:)`` adds the example's
    /// own).
    public static func example(
        state: AppState = AppState(),
        middleware: [any AnyMiddleware] = [],
        services: Services = Services()
    ) throws -> Store<AppState> {
        try Store(state: state, reducer: AppReducer.self, middleware: middleware, stateMappers: AppState.mappers, services: services)
    }
}
