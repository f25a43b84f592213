import ReMVVM
public import ReMVVMServer

/// The body of the `login` command: `{"firstName": …, "lastName": …}`.
public struct LoginForm: Codable, Sendable, Equatable {
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String

    /// Creates the form.
    public init(firstName: String, lastName: String) {
        self.firstName = firstName
        self.lastName = lastName
    }
}

extension CounterViewModel {
    /// `increase` and `decrease`, without a body.
    public static let commands: [ViewModelCommand<CounterViewModel>] = [
        ViewModelCommand("increase") { _, _ in [Increase()] },
        ViewModelCommand("decrease") { _, _ in [Decrease()] },
    ]
}

extension LoginViewModel {
    /// `login`, body ``LoginForm``: dispatches ``Login`` (which ``LoginMiddleware`` stamps).
    public static let commands: [ViewModelCommand<LoginViewModel>] = [
        ViewModelCommand("login", body: LoginForm.self) { form, _, _ in
            [Login(firstName: form.firstName, lastName: form.lastName)]
        },
    ]
}

extension GreetingsViewModel {
    /// `logout`, without a body.
    public static let commands: [ViewModelCommand<GreetingsViewModel>] = [
        ViewModelCommand("logout") { _, _ in [Logout()] },
    ]
}
