public import ReMVVM

/// The todo list: its items in the order they were added, and the id the next one gets.
///
/// On the wire: `{"items": [{"id": 1, "title": "Buy milk", "done": false}], "nextID": 2}`.
public struct TodoState: StoreState, Codable, Equatable {
    /// The items, oldest first.
    public var items: [TodoItem]
    /// The id of the next item added; ids are never reused.
    public var nextID: Int

    /// An empty list whose first item gets id 1.
    public init(items: [TodoItem] = [], nextID: Int = 1) {
        self.items = items
        self.nextID = nextID
    }

    /// Makes the `todos` view model of this list.
    public var factory: any ViewModelFactory {
        let items = self.items
        let factory = CompositeViewModelFactory()
        factory.add { TodoListViewModel(items: items) }
        return factory
    }
}

/// One thing to do.
public struct TodoItem: Codable, Sendable, Equatable {
    /// Unique in its list, given in order.
    public var id: Int
    /// What to do.
    public var title: String
    /// Whether it is done.
    public var done: Bool

    /// Creates an item.
    public init(id: Int, title: String, done: Bool = false) {
        self.id = id
        self.title = title
        self.done = done
    }
}
