import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /viewmodels`: the registered names.
    func listViewModels() -> Response {
        let names = (try? JSONCoding.encode(["viewModels": viewModels.names])) ?? Array("{}".utf8)
        return JSONCoding.response(names)
    }

    /// `GET /viewmodels/<name>[?key=K]`: the view model the current state's factory makes.
    func getViewModel(named name: String, key: String?) -> Response {
        guard let render = viewModels.renderer(named: name) else {
            return Problem(
                type: Problem.type("unknown-view-model"),
                title: "Unknown view model",
                status: 404,
                detail: "no view model is registered as \"\(name)\"; known: \(viewModels.names.joined(separator: ", "))",
                known: viewModels.names
            ).response
        }
        let snapshot = publisher.snapshot
        if let cached = viewModelCache.entry(name: name, key: key, version: snapshot.version) {
            return response(for: cached, name: name, key: key)
        }
        do {
            let entry: ViewModelCache.Entry = try render(snapshot.state, key).map { .json($0) } ?? .unavailable
            viewModelCache.store(entry, name: name, key: key, version: snapshot.version)
            return response(for: entry, name: name, key: key)
        } catch {
            logger.error("view model \(name) cannot be encoded: \(error)")
            return Problem(title: "Internal Server Error", status: 500, detail: "view model \"\(name)\" cannot be encoded as JSON").response
        }
    }

    private func response(for entry: ViewModelCache.Entry, name: String, key: String?) -> Response {
        switch entry {
        case .json(let json):
            return JSONCoding.response(json, headers: [("Cache-Control", "no-cache")])
        case .unavailable:
            let keyText = key.map { " for key \"\($0)\"" } ?? ""
            return Problem(
                type: Problem.type("view-model-unavailable"),
                title: "View model not available",
                status: 404,
                detail: "view model \"\(name)\" is not available in the current state\(keyText)"
            ).response
        }
    }
}
