public import ReMVVM

extension Store where State == AppState {
    /// The example app's store: initial state, root reducer, and the `counter` / `user` mappers.
    public static func example(
        state: AppState = AppState(),
        middleware: [any AnyMiddleware] = []
    ) throws -> Store<AppState> {
        try Store(state: state, reducer: AppReducer.self, middleware: middleware, stateMappers: AppState.mappers)
    }
}
