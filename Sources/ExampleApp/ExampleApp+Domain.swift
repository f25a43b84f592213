public import ReMVVMServerCommand

extension ExampleApp {
    /// The example as `remvvm-server` serves it: ``AppState`` from its initial value, ``AppReducer``,
    /// ``actions``, ``viewModels`` with their commands, the `counter` and `user` mappers and
    /// ``middleware(services:)``, on the production services.
    public static var domain: Domain<AppState> {
        Domain(
            name: "remvvm-server",
            initialState: AppState(),
            reducer: AppReducer.self,
            actions: actions,
            viewModels: viewModels,
            stateMappers: AppState.mappers,
            middleware: middleware(services:)
        )
    }
}
