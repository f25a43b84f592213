import ReMVVM
import ReMVVMServer

/// A large state for benchmarks: a todo list of `count` items; one action changes one item.
struct TodoState: StoreState, Codable {
    var items: [Todo]

    init(count: Int) {
        items = (0..<count).map { Todo(id: $0, title: "Todo item number \($0)", done: false) }
    }
}

/// One todo item.
struct Todo: Codable, Sendable, Equatable {
    var id: Int
    var title: String
    var done: Bool
}

/// Flips `done` on the item with `id`. Wire name `toggle`, payload `{"id": N}`.
struct Toggle: StoreAction, Codable {
    var id: Int
}

/// Applies `toggle`.
enum ToggleReducer: Reducer {
    static func reduce(state: TodoState, with action: Toggle) -> TodoState {
        guard state.items.indices.contains(action.id) else { return state }
        var state = state
        state.items[action.id].done.toggle()
        return state
    }
}

/// How many items are done: a small view model over the large state.
struct ProgressViewModel: Encodable {
    let done: Int
    let total: Int
}
