import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /viewmodels`: the registered names, and the commands of each.
    func listViewModels() -> Response {
        let list = ViewModelList(viewModels: viewModels.names, commands: viewModels.commandNames)
        return JSONCoding.response((try? JSONCoding.encode(list)) ?? Array("{}".utf8))
    }

    /// `GET /viewmodels/<name>[?key=K]`: the view model the current state's factory makes.
    func getViewModel(named name: String, key: String?, in served: ServedStore<State>) -> Response {
        guard let render = viewModels.renderer(named: name), let slot = viewModelSlots[name] else {
            return Problem.unknownViewModel(name, known: viewModels.names).response
        }
        return getViewModel(named: name, slot: slot, render: render, key: key, in: served)
    }

    /// ``getViewModel(named:key:in:)`` with the view model's renderer and cache slot looked up
    /// already (the root's route of each view model holds its own: ``addViewModelPaths(to:)``).
    func getViewModel(
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
