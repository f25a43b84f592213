public import ReMVVM

/// The example app's state: a counter and the logged-in user, if any.
///
/// On the wire it is `{"counter": 0, "user": null}`: `user` is always present, `null` when nobody is
/// logged in, so clients see a stable shape.
public struct AppState: StoreState, Codable, Equatable {
    /// How many `increase` minus `decrease` actions were reduced.
    public var counter: Int
    /// Who is logged in.
    public var user: User?

    /// Creates a state; the default is the initial state `{counter: 0, user: nil}`.
    public init(counter: Int = 0, user: User? = nil) {
        self.counter = counter
        self.user = user
    }

    /// The substates the example's typed middleware and observers use: `counter` and `user`.
    public static let mappers: [StateMapper<AppState>] = [
        StateMapper(for: \.counter),
        StateMapper(for: \.user),
    ]

    /// Makes the `counter`, `greetings` and `login` view models from this state.
    public var factory: any ViewModelFactory {
        let counter = self.counter
        let user = self.user
        let factory = CompositeViewModelFactory()
        factory.add { CounterViewModel(counter: counter) }
        factory.add { GreetingsViewModel(user: user) }
        factory.add { LoginViewModel(user: user) }
        return factory
    }

    private enum CodingKeys: String, CodingKey {
        case counter, user
    }

    /// Encodes `user` as `null` when absent instead of leaving the key out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
        try container.encode(user, forKey: .user)
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
