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
