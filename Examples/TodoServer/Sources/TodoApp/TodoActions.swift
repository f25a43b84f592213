public import ReMVVM

/// Adds an item at the end of the list. Wire name `add`, payload `{"title": …}`.
public struct AddTodo: StoreAction, Codable, Equatable {
    /// What to do.
    public var title: String

    /// Creates the action.
    public init(title: String) {
        self.title = title
    }
}

/// Marks an item done. Wire name `complete`, payload `{"id": …}`; an unknown id changes nothing.
public struct CompleteTodo: StoreAction, Codable, Equatable {
    /// The item's id.
    public var id: Int

    /// Creates the action.
    public init(id: Int) {
        self.id = id
    }
}

/// Removes every item that is done. Wire name `clear-completed`.
public struct ClearCompleted: StoreAction, Codable, Equatable {
    /// Creates the action.
    public init() {}
}
