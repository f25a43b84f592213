public import ReMVVM
public import ReMVVMServer

/// The example domain plugged into the service: its wire names, its view models with their
/// commands, its middleware and its store.
public enum ExampleApp {
    /// `increase`, `decrease`, `login` (payload `{"firstName", "lastName"}`, and `loggedInAt` once
    /// stamped) and `logout`.
    public static var actions: ActionRegistry {
        var actions = ActionRegistry()
        actions.register(Increase.self, as: "increase")
        actions.register(Decrease.self, as: "decrease")
        actions.register(Login.self, as: "login")
        actions.register(Logout.self, as: "logout")
        return actions
    }

    /// `counter` (commands `increase`, `decrease`), `greetings` (command `logout`; not available
    /// while nobody is logged in) and `login` (command `login`; available only while nobody is).
    public static var viewModels: ViewModelRegistry<AppState> {
        var viewModels = ViewModelRegistry<AppState>()
        viewModels.register(CounterViewModel.self, as: "counter", commands: CounterViewModel.commands)
        viewModels.register(GreetingsViewModel.self, as: "greetings", commands: GreetingsViewModel.commands)
        viewModels.register(LoginViewModel.self, as: "login", commands: LoginViewModel.commands)
        return viewModels
    }

    /// The example's middleware, built from `services`: ``LoginMiddleware`` on its clock.
    public static func middleware(services: Services) -> [any AnyMiddleware] {
        [LoginMiddleware(clock: services.clock)]
    }

    /// The store as `remvvm-server` runs it (``domain``'s): ``middleware(services:)`` and `services`
    /// (which the service also hands to the view-model commands); production services by default.
    public static func store(state: AppState = AppState(), services: Services = Services()) throws -> Store<AppState> {
        var domain = domain
        domain.initialState = state
        domain.services = services
        return try domain.store()
    }
}
