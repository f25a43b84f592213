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
