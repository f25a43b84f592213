public import ReMVVM

/// The todo list's root reducer: `add`, `complete` and `clear-completed`.
public enum TodoReducer: Reducer {
    private static let composed = AddTodoReducer.compose(with: CompleteTodoReducer.self)
        .compose(with: ClearCompletedReducer.self)

    /// Applies the three actions; others leave the list as it is.
    public static func reduce(state: TodoState, with action: any StoreAction) -> TodoState {
        composed.reduce(state: state, with: action)
    }
}

/// Appends an item with the next id.
public enum AddTodoReducer: Reducer {
    /// The list with the new item at its end.
    public static func reduce(state: TodoState, with action: AddTodo) -> TodoState {
        var state = state
        state.items.append(TodoItem(id: state.nextID, title: action.title))
        state.nextID += 1
        return state
    }
}

/// Marks the item with the action's id done.
public enum CompleteTodoReducer: Reducer {
    /// The list with that item done.
    public static func reduce(state: TodoState, with action: CompleteTodo) -> TodoState {
        var state = state
        if let index = state.items.firstIndex(where: { $0.id == action.id }) {
            state.items[index].done = true
        }
        return state
    }
}

/// Removes the items that are done.
public enum ClearCompletedReducer: Reducer {
    /// The list without them.
    public static func reduce(state: TodoState, with action: ClearCompleted) -> TodoState {
        var state = state
        state.items.removeAll(where: \.done)
        return state
    }
}
