public import ReMVVM

/// A named command of the view model `ViewModel`: it turns a request body (decoded into a
/// `Decodable` type) and the current view model into the actions to dispatch — the server side
/// of RxMVVM inputs and swift-mvvm commands. `POST /viewmodels/<name>/commands/<command>`
/// dispatches them as `POST /actions` would.
///
/// ```swift
/// extension LoginViewModel {
///     static let commands: [ViewModelCommand<LoginViewModel>] = [
///         ViewModelCommand("login", body: LoginForm.self) { form, viewModel, services in
///             [Login(firstName: form.firstName, lastName: form.lastName)]
///         },
///     ]
/// }
/// viewModels.register(LoginViewModel.self, as: "login", commands: LoginViewModel.commands)
/// ```
///
/// Every action a command returns must be registered in the ``ActionRegistry`` (the journal, the
/// event stream and the action log need its wire name); one that is not is refused with `500`
/// and nothing is dispatched. Throw ``CommandRejection`` to refuse a request with `422`.
public struct ViewModelCommand<ViewModel>: Sendable {
    /// What is left to do once the body decoded: run the command on a view model.
    typealias Bound = @Sendable (ViewModel, Services) throws -> [any StoreAction]

    /// The command's name: the last segment of its path.
    public let name: String
    /// The type the body decodes into, for its schema in the OpenAPI document.
    let bodyType: any (Decodable & Sendable).Type
    /// Decodes a body (400 or 422 when it cannot) into the command's run.
    let bind: @Sendable ([UInt8]) throws(ActionDecodingError) -> Bound

    /// A command whose body decodes into `Body`, as strictly as an action's payload: an empty
    /// body reads as `{}`, unknown members are ignored, a field that does not decode is named.
    /// - Parameters:
    ///   - name: the command's name in its path.
    ///   - body: the type the JSON body decodes into.
    ///   - perform: the actions for the decoded body and the view model the current state's
    ///     factory makes; gets the store's `Services` for its dependencies. Runs on the
    ///     request's thread inside the store's exclusive step, with the dispatch of what it
    ///     returns, so that nothing comes between the view model it sees and its actions: keep it
    ///     short (every other dispatch waits for it), and never dispatch from it or wait on this
    ///     server (a request to it would wait for the step it is in). Slow work belongs in
    ///     middleware or before the request.
    public init<Body: Decodable & Sendable>(
        _ name: String,
        body: Body.Type,
        perform: @escaping @Sendable (_ body: Body, _ viewModel: ViewModel, _ services: Services) throws -> [any StoreAction]
    ) {
        self.name = name
        bodyType = Body.self
        bind = { bytes throws(ActionDecodingError) in
            let body = try CommandBodyDecoder.decode(Body.self, from: bytes, command: name)
            return { viewModel, services in try perform(body, viewModel, services) }
        }
    }

    /// A command without a body: the request sends none, or a JSON object whose members it
    /// ignores.
    public init(
        _ name: String,
        perform: @escaping @Sendable (_ viewModel: ViewModel, _ services: Services) throws -> [any StoreAction]
    ) {
        self.init(name, body: EmptyCommandBody.self) { _, viewModel, services in
            try perform(viewModel, services)
        }
    }
}

/// Thrown by a command to refuse a request it cannot turn into actions: the client gets `422`
/// `urn:remvvm:problem:command-rejected` with the reason, and nothing is dispatched.
public struct CommandRejection: Error, Sendable, Equatable {
    /// Why, for the client.
    public let reason: String

    /// A rejection with a reason the client can read.
    public init(reason: String) {
        self.reason = reason
    }
}

/// The body of a command that takes none: an empty body or any JSON object.
struct EmptyCommandBody: Decodable, Sendable {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        // An object, also when nothing is read from it (as an action's payload).
        _ = try decoder.container(keyedBy: AnyKey.self)
    }
}
