import MicroHTTP
import ReMVVM

extension ServiceEndpoints {
    /// `POST /actions`: one action or a batch; 200 with the version, 202, or a problem.
    func postActions(_ request: Request) -> Response {
        guard Self.isJSON(request.headers["Content-Type"]) else {
            return Problem.unsupportedMediaType(request.headers["Content-Type"]).response
        }
        let actions: [any StoreAction]
        do {
            actions = try actionDecoder.decode(request.body)
        } catch {
            logger.debug("refused actions: \(error.message)")
            return error.problem.response
        }
        switch store.dispatchAndWait(actions) {
        case .reduced(let version):
            return JSONCoding.response(Array("{\"version\":\(version)}".utf8))
        case .accepted:
            return JSONCoding.response(Array("{\"accepted\":true}".utf8), status: 202)
        case .rejected(let reason, let index):
            let position = actions.count > 1 ? "action [\(index)] was rejected: " : "the action was rejected: "
            let applied = actions.count > 1 && index > 0 ? "; the actions before it were applied" : ""
            return Problem(
                type: Problem.type("action-rejected"),
                title: "Action rejected",
                status: 422,
                detail: position + reason + applied,
                index: actions.count > 1 ? index : nil
            ).response
        }
    }

    /// Whether a Content-Type names JSON: `application/json` or `application/<x>+json`, any parameters.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
