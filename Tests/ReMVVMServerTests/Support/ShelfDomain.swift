import ReMVVM

/// A small domain with a keyed view model, for tests where `?key=` must reach the factory: a
/// library of shelves; `shelf` view models exist only for shelves the state has, and are not
/// `Equatable` (streams compare their JSON).
struct Shelf: StoreState, Codable {
    var books: [String: [String]] = ["fiction": ["Dune"], "poetry": []]
    var stampedAt: String?

    var factory: any ViewModelFactory {
        let books = books
        let factory = CompositeViewModelFactory()
        factory.add { (key: String?) -> ShelfViewModel? in
            guard let key, let titles = books[key] else { return nil }
            return ShelfViewModel(shelf: key, titles: titles)
        }
        return factory
    }
}

/// One shelf and its titles: `{"shelf": …, "titles": […]}`.
struct ShelfViewModel: Encodable {
    let shelf: String
    let titles: [String]
}

/// Puts a title on a shelf (made when missing).
struct Shelve: StoreAction, Codable {
    var shelf: String
    var title: String
}

/// Records a time in the state.
struct Stamp: StoreAction, Codable {
    var at: String
}

/// Applies ``Shelve`` and ``Stamp``; other actions leave the state as it is.
enum ShelfReducer: Reducer {
    static func reduce(state: Shelf, with action: any StoreAction) -> Shelf {
        var state = state
        if let shelve = action as? Shelve {
            state.books[shelve.shelf, default: []].append(shelve.title)
        } else if let stamp = action as? Stamp {
            state.stampedAt = stamp.at
        }
        return state
    }
}
