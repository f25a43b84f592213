import ReMVVM
public import ReMVVMServer

/// The example domain plugged into the service: its wire names and its view models.
public enum ExampleApp {
    /// `increase`, `decrease`, `login` (payload `{"firstName", "lastName"}`) and `logout`.
    public static var actions: ActionRegistry {
        var actions = ActionRegistry()
        actions.register(Increase.self, as: "increase")
        actions.register(Decrease.self, as: "decrease")
        actions.register(Login.self, as: "login")
        actions.register(Logout.self, as: "logout")
        return actions
    }

    /// `counter` and `greetings` (not available while nobody is logged in).
    public static var viewModels: ViewModelRegistry<AppState> {
        var viewModels = ViewModelRegistry<AppState>()
        viewModels.register(CounterViewModel.self, as: "counter")
        viewModels.register(GreetingsViewModel.self, as: "greetings")
        return viewModels
    }
}
