public import ReMVVM
public import ReMVVMNavigation

/// The example app's state: a counter, the logged-in user, if any, and where the user is in the
/// app (``AppState/navigation``).
///
/// On the wire it is `{"counter": 0, "user": null}`: `user` is always present, `null` when nobody is
/// logged in, so clients see a stable shape. `navigation` is written only once it differs from
/// ``AppState/startNavigation`` (and read as that start when absent), so the state of a store
/// nobody navigated in is the same JSON as before the example had navigation: older journals,
/// snapshots and clients read it unchanged.
public struct AppState: StoreState, Codable, Equatable {
    /// How many `increase` minus `decrease` actions were reduced.
    public var counter: Int
    /// Who is logged in.
    public var user: User?
    /// The screens: the tab "counter" (root `counter`) and the tab "account" (root `greetings`),
    /// and the modals over them (`login`).
    public var navigation: NavigationState

    /// Creates a state; the default is the initial state `{counter: 0, user: nil}` at
    /// ``startNavigation``.
    public init(counter: Int = 0, user: User? = nil, navigation: NavigationState = AppState.startNavigation) {
        self.counter = counter
        self.user = user
        self.navigation = navigation
    }

    /// Where every session starts: the tab "counter" selected at its root screen `counter`, the
    /// tab "account" at `greetings`, no modal.
    public static let startNavigation: NavigationState = {
        // Two tabs of distinct names, the first selected: the rules init(tabs:) checks hold.
        try! NavigationState(tabs: [
            NavigationTab(ExampleApp.counterTab, root: Screen(ExampleApp.counterScreen)),
            NavigationTab(ExampleApp.accountTab, root: Screen(ExampleApp.greetingsScreen)),
        ])
    }()

    /// The substates the example's typed middleware and observers use: `counter` and `user`.
    public static let mappers: [StateMapper<AppState>] = [
        StateMapper(for: \.counter),
        StateMapper(for: \.user),
    ]

    /// Makes the `counter`, `counterInBase`, `greetings` and `login` view models from this state.
    public var factory: any ViewModelFactory {
        let counter = self.counter
        let user = self.user
        let factory = CompositeViewModelFactory()
        factory.add { CounterViewModel(counter: counter) }
        factory.add { (key: String?) in CounterInBaseViewModel(counter: counter, base: key) }
        factory.add { GreetingsViewModel(user: user) }
        factory.add { LoginViewModel(user: user) }
        return factory
    }

    private enum CodingKeys: String, CodingKey {
        case counter, user, navigation
    }

    /// Reads a state, `navigation` absent meaning ``startNavigation``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        counter = try container.decode(Int.self, forKey: .counter)
        user = try container.decodeIfPresent(User.self, forKey: .user)
        navigation = try container.decodeIfPresent(NavigationState.self, forKey: .navigation) ?? Self.startNavigation
    }

    /// Encodes `user` as `null` when absent instead of leaving the key out, and `navigation` only
    /// when it is not ``startNavigation``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
        try container.encode(user, forKey: .user)
        if navigation != Self.startNavigation {
            try container.encode(navigation, forKey: .navigation)
        }
    }
}

/// A logged-in user: `{"firstName": …, "lastName": …, "loggedInAt": …}`, `loggedInAt` left out
/// when the login was not stamped.
public struct User: Codable, Sendable, Equatable {
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String
    /// When the user logged in (RFC 3339), as ``LoginMiddleware`` stamped it on the action.
    public var loggedInAt: String?

    /// Creates a user.
    public init(firstName: String, lastName: String, loggedInAt: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.loggedInAt = loggedInAt
    }
}
