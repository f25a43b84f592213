import Foundation
public import JSONPatch

extension ReMVVMClient {
    /// The store's state now (`GET /state`), as JSON, with its version's tag. Retried like a
    /// dispatch after network errors and `503`.
    public func stateJSON() async throws -> (tag: VersionTag, state: JSON) {
        let response = try await sendRetrying(request("GET", url("/state")))
        guard response.head.status == 200 else { throw Self.error(for: response, of: "GET /state") }
        guard let etag = response.head[header: "ETag"] else {
            throw ClientError(.invalidResponse, "GET /state answered without an ETag")
        }
        do {
            return (VersionTag(etag), try JSON(parsing: response.body))
        } catch {
            throw ClientError(.invalidResponse, "GET /state answered with a body that is not JSON: \(error)")
        }
    }

    /// The store's state now, decoded into the app's `State` type, with its version's tag.
    public func state<State: Decodable>(as type: State.Type) async throws -> (tag: VersionTag, state: State) {
        let (tag, json) = try await stateJSON()
        return (tag, try JSONDecoder().decode(type, fromJSON: json, what: "the state of version \(tag)"))
    }

    /// The view model `name` (for `key`, if given) now, decoded into the app's type; nil when the
    /// state makes none (`404 view-model-unavailable`). An unknown name throws the server's `404`.
    public func viewModel<ViewModel: Decodable>(_ name: String, key: String? = nil, as type: ViewModel.Type) async throws -> ViewModel? {
        let path = "/viewmodels/\(Self.percentEncoded(name))"
        let response = try await sendRetrying(request("GET", url(path, query: key.map { [("key", $0)] } ?? [])))
        switch response.head.status {
        case 200:
            do {
                return try JSONDecoder().decode(type, from: Data(response.body))
            } catch {
                throw ClientError(.coding, "the view model \(name) does not decode as \(ViewModel.self): \(error)")
            }
        default:
            let error = Self.error(for: response, of: "GET \(path)")
            if error.problem?.name == "view-model-unavailable" { return nil }
            throw error
        }
    }
}
