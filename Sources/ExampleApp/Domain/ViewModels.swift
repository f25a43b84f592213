/// The counter as text: `{"counter": "<n>"}`.
public struct CounterViewModel: Encodable, Sendable, Equatable {
    /// The counter, as a string.
    public let counter: String

    /// Creates the view model of `counter`.
    public init(counter: Int) {
        self.counter = String(counter)
    }
}

/// A greeting for the logged-in user: `{"greetings": "Hello <first> <last> <3"}`.
public struct GreetingsViewModel: Encodable, Sendable, Equatable {
    /// The greeting.
    public let greetings: String

    /// Creates the greeting, or nil when nobody is logged in.
    public init?(user: User?) {
        guard let user else { return nil }
        greetings = "Hello \(user.firstName) \(user.lastName) <3"
    }
}

/// The login screen, shown while nobody is logged in: `{"prompt": "…"}`. Its `login` command
/// logs a user in; once someone is logged in the factory makes none (the `greetings` view model
/// takes over, with its `logout` command).
public struct LoginViewModel: Encodable, Sendable, Equatable {
    /// What the screen asks for.
    public let prompt: String

    /// Creates the login screen, or nil when someone is logged in already.
    public init?(user: User?) {
        guard user == nil else { return nil }
        prompt = "Log in with your first and last name"
    }
}

/// The counter written in another base, the detail screen of the tab "counter"
/// (`counterInBase?key=<base>`): `{"base": 2, "counter": "-101"}` for -5 in base 2. Lower-case
/// digits beyond 9.
public struct CounterInBaseViewModel: Encodable, Sendable, Equatable {
    /// The base, 2–36.
    public let base: Int
    /// The counter in that base.
    public let counter: String

    /// The bases a key may name.
    public static let bases = 2...36

    /// Creates the view model of `counter` in the base `base` names, or nil (not available) when
    /// `base` is absent or not a number of ``bases``.
    public init?(counter: Int, base: String?) {
        guard let base, let radix = Int(base), Self.bases.contains(radix) else { return nil }
        self.base = radix
        self.counter = String(counter, radix: radix)
    }
}
