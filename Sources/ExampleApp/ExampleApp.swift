public import ReMVVM
import ReMVVMNavigation
public import ReMVVMServer

/// The example domain plugged into the service: its wire names, its view models with their
/// commands, its middleware and its store.
public enum ExampleApp {
    /// The tab whose root is the counter.
    public static let counterTab = "counter"
    /// The tab whose root is the greeting of the logged-in user.
    public static let accountTab = "account"
    /// The counter screen, root of the tab "counter".
    public static let counterScreen = "counter"
    /// The counter in another base (key: the base), pushed over the counter screen.
    public static let counterInBaseScreen = "counterInBase"
    /// The greeting, root of the tab "account".
    public static let greetingsScreen = "greetings"
    /// The login screen, shown as a modal.
    public static let loginScreen = "login"

    /// `increase`, `decrease`, `login` (payload `{"firstName", "lastName"}`, and `loggedInAt` once
    /// stamped), `logout`, and the navigation actions (`navigation.push`, `pop`, `popToRoot`,
    /// `showModal`, `dismissModal`, `selectTab`).
    public static var actions: ActionRegistry {
        var actions = ActionRegistry()
        actions.register(Increase.self, as: "increase")
        actions.register(Decrease.self, as: "decrease")
        actions.register(Login.self, as: "login")
        actions.register(Logout.self, as: "logout")
        actions.registerNavigation()
        return actions
    }

    /// `counter` and `counterInBase` (commands `increase`, `decrease`; the latter keyed by a base
    /// 2–36), `greetings` (command `logout`; not available while nobody is logged in), `login`
    /// (command `login`; available only while nobody is) and `navigation` (the screens, with the
    /// view model of the one shown).
    public static var viewModels: ViewModelRegistry<AppState> {
        var viewModels = ViewModelRegistry<AppState>()
        viewModels.register(CounterViewModel.self, as: counterScreen, commands: CounterViewModel.commands)
        viewModels.register(CounterInBaseViewModel.self, as: counterInBaseScreen, commands: CounterInBaseViewModel.commands)
        viewModels.register(GreetingsViewModel.self, as: greetingsScreen, commands: GreetingsViewModel.commands)
        viewModels.register(LoginViewModel.self, as: loginScreen, commands: LoginViewModel.commands)
        viewModels.registerNavigation(at: \AppState.navigation)
        return viewModels
    }

    /// The example's middleware, built from `services`: ``LoginMiddleware`` on its clock, and the
    /// ``ReMVVMNavigation/NavigationMiddleware`` that refuses screens other than ``viewModels``'
    /// and tabs other than the two, and ends navigation actions that would change nothing.
    public static func middleware(services: Services) -> [any AnyMiddleware] {
        [
            LoginMiddleware(clock: services.clock),
            NavigationMiddleware(at: \AppState.navigation, screens: viewModels.screenNames),
        ]
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
