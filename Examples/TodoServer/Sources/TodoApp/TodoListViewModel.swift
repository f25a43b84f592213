public import ReMVVMServer

/// The list as a screen shows it: `{"remaining": "1 of 2 left", "items": ["[x] Buy milk", "[ ] Call Bob"]}`.
public struct TodoListViewModel: Encodable, Sendable, Equatable {
    /// How many items are not done, of how many.
    public let remaining: String
    /// Each item as a line with its checkbox.
    public let items: [String]

    /// Creates the view model of `items`.
    public init(items: [TodoItem]) {
        remaining = "\(items.count { !$0.done }) of \(items.count) left"
        self.items = items.map { "[\($0.done ? "x" : " ")] \($0.title)" }
    }
}

/// The body of the `add` command: `{"title": …}`.
public struct NewTodo: Codable, Sendable, Equatable {
    /// What to do; ``TitleMiddleware`` refuses a blank one.
    public var title: String
}

extension TodoListViewModel {
    /// `add` (body ``NewTodo``) and `clear-completed`.
    public static let commands: [ViewModelCommand<TodoListViewModel>] = [
        ViewModelCommand("add", body: NewTodo.self) { form, _, _ in [AddTodo(title: form.title)] },
        ViewModelCommand("clear-completed") { _, _ in [ClearCompleted()] },
    ]
}
