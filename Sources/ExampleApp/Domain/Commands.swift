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

/// `increase` and `decrease`, without a body: the commands of every screen that shows the counter.
private func counterCommands<ViewModel>() -> [ViewModelCommand<ViewModel>] {
    [
        ViewModelCommand("increase") { _, _ in [Increase()] },
        ViewModelCommand("decrease") { _, _ in [Decrease()] },
    ]
}

extension CounterViewModel {
    /// `increase` and `decrease`, without a body.
    public static let commands: [ViewModelCommand<CounterViewModel>] = counterCommands()
}

extension CounterInBaseViewModel {
    /// `increase` and `decrease`, without a body, as on the counter screen.
    public static let commands: [ViewModelCommand<CounterInBaseViewModel>] = counterCommands()
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
