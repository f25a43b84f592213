import AccessControl
import ExampleApp
import ReMVVMClient

/// The example app's wire names, as its server registers them.
let exampleActions: ActionNames = {
    var actions = ActionNames()
    actions.register(Increase.self, as: "increase")
    actions.register(Decrease.self, as: "decrease")
    actions.register(Login.self, as: "login")
    actions.register(Logout.self, as: "logout")
    return actions
}()

/// `GreetingsViewModel` as a client decodes it.
struct Greetings: Decodable, Sendable, Equatable {
    let greetings: String
}

/// `CounterViewModel` as a client decodes it.
struct Counter: Decodable, Sendable, Equatable {
    let counter: String
}

/// A retry policy for tests: quick, and long enough to outlast a restart under load.
let quickRetries = RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(500), maximumAttempts: 200)

/// A wait that took longer than its deadline.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// The static token of ``testAuthorizer()``, with `read` and `dispatch`.
let testToken = "client-token-Zr8v0w"

/// Access control with ``testToken`` only.
func testAuthorizer() throws -> BearerAuthorizer {
    BearerAuthorizer(staticTokens: try StaticTokens(environment: "\(testToken)=read+dispatch"))
}
