import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /state`: the state as JSON with the version as `ETag` (see ``VersionTags``); 304 when `If-None-Match` matches.
    func getState(_ request: Request) -> Response {
        let snapshot = publisher.snapshot
        let etag = configuration.versionTags.etag(snapshot.version)
        if let condition = request.headers["If-None-Match"], Self.matches(etag, condition) {
            return Response(status: 304, headers: HTTPHeaders([("ETag", etag)]))
        }
        do {
            let json = try stateCache.json(for: snapshot)
            return JSONCoding.response(json, headers: [("ETag", etag), ("Cache-Control", "no-cache")])
        } catch {
            logger.error("state version \(snapshot.version) cannot be encoded: \(error)")
            return Problem(title: "Internal Server Error", status: 500, detail: "the state cannot be encoded as JSON").response
        }
    }

    /// `GET /healthz`: `{"status":"ok","version":N}`.
    func getHealth() -> Response {
        JSONCoding.response(Array("{\"status\":\"ok\",\"version\":\(publisher.snapshot.version)}".utf8), headers: [("Cache-Control", "no-cache")])
    }

    /// Whether an `If-None-Match` value (`*`, or a list of strong or weak tags) matches `etag`.
    static func matches(_ etag: String, _ condition: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
