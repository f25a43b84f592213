import Synchronization

/// Which actions a middleware sees (``AnyMiddleware/actionFilter``), told once when a store is
/// made, so that passing over a middleware an action is not for costs no dynamic cast.
public enum MiddlewareActionFilter: Sendable, Hashable {
    /// Every action.
    case everyAction
    /// The actions of exactly this type (a struct or enum: no other type's instance is one).
    case exactType(ObjectIdentifier)
    /// The actions of exactly one of these types (structs or enums), for a middleware of a few
    /// action types: passed over without reading the middleware (``asked`` reads it).
    case exactTypes([ObjectIdentifier])
    /// Whatever ``AnyMiddleware/handles(_:)`` answers for each action.
    case asked

    /// Whether `action` passes; `handles` (the middleware's ``AnyMiddleware/handles(_:)``) is
    /// called only for ``asked``, so that a middleware passed over by its filter is not read at all.
    @inlinable
    public func admits(_ action: any StoreAction, handledBy handles: (any StoreAction) -> Bool) -> Bool {
        switch self {
        case .everyAction: true
        case .exactType(let type): actionTypeIdentifier(of: action) == type
        case .exactTypes(let types): types.contains(actionTypeIdentifier(of: action))
        case .asked: handles(action)
        }
    }
}

/// The lists of filters of stores' middleware, one copy of each: every store of a domain makes its
/// own middleware, but their filters are the same, and a store that passes an action over its
/// middleware reads only the filters. Shared, the list is in the caches whichever store a request
/// is for; one per store, it was a cold line per request to a store touched once in a while.
final class MiddlewareFilterLists: Sendable {
    /// The lists every store shares (``Store``'s middleware).
    static let shared = MiddlewareFilterLists(capacity: 256)

    /// At most this many lists are kept; a list beyond them stays the store's own.
    let capacity: Int
    private let lists = Mutex<Set<[MiddlewareActionFilter]>>([])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The kept list equal to `filters` (kept now if it is new and there is room), else `filters`.
    func list(_ filters: [MiddlewareActionFilter]) -> [MiddlewareActionFilter] {
        if filters.isEmpty {
            return filters
        }
        return lists.withLock { lists in
            if let kept = lists.firstIndex(of: filters) {
                return lists[kept]
            }
            if lists.count < capacity {
                lists.insert(filters)
            }
            return filters
        }
    }
}
