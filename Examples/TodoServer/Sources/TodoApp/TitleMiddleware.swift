import Foundation
public import ReMVVM

/// Trims the title of every `add` and refuses one that is blank, whether it came as an action
/// (`POST /actions`) or from the `add` command: the client gets `422` with the reason.
public struct TitleMiddleware: Middleware {
    /// Creates the middleware.
    public init() {}

    /// Passes `action` on with its title trimmed, or rejects it when nothing is left.
    public func onNext(
        for state: TodoState,
        action: AddTodo,
        interceptor: Interceptor<AddTodo, TodoState>,
        dispatcher: any Dispatcher
    ) {
        let title = action.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else {
            interceptor.reject(reason: "the title is blank")
            return
        }
        interceptor.next(action: AddTodo(title: title))
    }
}
