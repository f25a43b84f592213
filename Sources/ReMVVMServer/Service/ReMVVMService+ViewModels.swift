import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /viewmodels`: the registered names, and the commands of each.
    func listViewModels() -> Response {
        let list = ViewModelList(viewModels: viewModels.names, commands: viewModels.commandNames)
        return JSONCoding.response((try? JSONCoding.encode(list)) ?? Array("{}".utf8))
    }

    /// `GET /viewmodels/<name>[?key=K]` of every registered view model, by name: each answer
    /// holds its renderer and its slot in a store's ``ViewModelCache``, so that a request finds
    /// them with one lookup in a table that is not generic (the registry's own lookup is generic
    /// over the app's state: two runtime type lookups a request, here unspecialized). Made once,
    /// with the router.
    func viewModelAnswers() -> [String: ViewModelAnswer] {
        var answers: [String: ViewModelAnswer] = [:]
        for (slot, name) in viewModels.names.enumerated() {
            guard let render = viewModels.renderer(named: name) else { continue }
            answers[name] = ViewModelAnswer { [self] key, store in
                // `store` is the `ServedStore<State>` the route serves (see ``ViewModelAnswer``).
                getViewModel(named: name, slot: slot, render: render, key: key, in: unsafeDowncast(store, to: ServedStore<State>.self))
            }
        }
        return answers
    }

    /// `GET /viewmodels/<name>[?key=K]`: the view model the current state's factory makes.
    private func getViewModel(
        named name: String, slot: Int, render: ViewModelRegistry<State>.Render, key: String?, in served: ServedStore<State>
    ) -> Response {
        let snapshot = served.publisher.snapshot
        if let cached = served.viewModelCache.entry(slot: slot, name: name, key: key, version: snapshot.version) {
            return response(for: cached, name: name, key: key)
        }
        do {
            let entry: ViewModelCache.Entry = try render(snapshot.state, key).map { json in
                .answer(JSONCoding.response(json, headers: [("Cache-Control", "no-cache")]).preparedForReuse())
            } ?? .unavailable
            served.viewModelCache.store(entry, slot: slot, name: name, key: key, version: snapshot.version)
            return response(for: entry, name: name, key: key)
        } catch {
            logger.error("view model \(name) cannot be encoded: \(error)")
            return Problem(title: "Internal Server Error", status: 500, detail: "view model \"\(name)\" cannot be encoded as JSON").response
        }
    }

    private func response(for entry: ViewModelCache.Entry, name: String, key: String?) -> Response {
        switch entry {
        case .answer(let response):
            return response
        case .unavailable:
            return Problem.viewModelUnavailable(name, key: key).response
        }
    }
}

/// The body of `GET /viewmodels`.
private struct ViewModelList: Encodable {
    let viewModels: [String]
    let commands: [String: [String]]
}

/// How one registered view model answers `GET /viewmodels/<name>` for a store
/// (``ReMVVMService/viewModelAnswers()``). Not generic, so that a table of them is looked up
/// without runtime type lookups; the store is passed as the `ServedStore` of the service's state
/// that the route serves, typed `AnyObject` for that reason.
struct ViewModelAnswer: Sendable {
    /// The answer for `key` (`?key=`, nil without one) in the store.
    let respond: @Sendable (_ key: String?, _ store: AnyObject) -> Response
}
