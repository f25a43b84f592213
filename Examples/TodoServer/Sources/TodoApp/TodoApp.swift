public import ReMVVMServer
public import ReMVVMServerCommand

/// The todo list domain as `todo-server` serves it.
public enum TodoApp {
    /// `add`, `complete` and `clear-completed`.
    public static var actions: ActionRegistry {
        var actions = ActionRegistry()
        actions.register(AddTodo.self, as: "add")
        actions.register(CompleteTodo.self, as: "complete")
        actions.register(ClearCompleted.self, as: "clear-completed")
        return actions
    }

    /// `todos`, with its commands `add` and `clear-completed`.
    public static var viewModels: ViewModelRegistry<TodoState> {
        var viewModels = ViewModelRegistry<TodoState>()
        viewModels.register(TodoListViewModel.self, as: "todos", commands: TodoListViewModel.commands)
        return viewModels
    }

    /// The whole domain, for ``ReMVVMServerCommand/ReMVVMServerCommand/main(_:)``.
    public static var domain: Domain<TodoState> {
        Domain(
            name: "todo-server",
            initialState: TodoState(),
            reducer: TodoReducer.self,
            actions: actions,
            viewModels: viewModels,
            middleware: { _ in [TitleMiddleware()] }
        )
    }
}
