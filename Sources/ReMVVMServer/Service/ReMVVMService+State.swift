import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /state`: the state as JSON with the version as `ETag` (see ``VersionTags``); 304 when `If-None-Match` matches.
    func getState(_ request: Request) -> Response {
        let snapshot = publisher.snapshot
        let etag = configuration.versionTags.etag(snapshot.version)
        if let condition = request.headers.list("If-None-Match"), Self.matches(etag, condition) {
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

    /// `GET /healthz`: `{"status":"ok","version":N}`. A replica of a shared log answers 503
    /// `{"status":"catching-up"|"unavailable"|"stopped","version":N,"replica":…,"reason":…}`
    /// until it follows the log, caught up (load balancers then send it no traffic).
    func getHealth() -> Response {
        let version = publisher.snapshot.version
        guard let replica, let replication else {
            if let failure = durable?.journal.failure {
                // Writes get 503 while commits fail: not ready for them (reads go on).
                var body = Array("{\"status\":\"failing\",\"version\":\(version),\"reason\":".utf8)
                body += JSONCoding.string(failure.message) + [UInt8(ascii: "}")]
                return JSONCoding.response(body, status: 503, headers: [("Cache-Control", "no-cache")])
            }
            return JSONCoding.response(Array("{\"status\":\"ok\",\"version\":\(version)}".utf8), headers: [("Cache-Control", "no-cache")])
        }
        let status: String
        var reason: String?
        switch replica.log.status {
        case .following: status = "ok"
        case .catchingUp: status = "catching-up"
        case .unavailable(let why): (status, reason) = ("unavailable", why)
        case .stopped(let why): (status, reason) = ("stopped", why ?? "shutting down")
        }
        var body = Array("{\"status\":\"\(status)\",\"version\":\(version),\"replica\":".utf8)
        body += JSONCoding.string(replication.name)
        if let reason {
            body += Array(",\"reason\":".utf8) + JSONCoding.string(reason)
        }
        body.append(UInt8(ascii: "}"))
        return JSONCoding.response(body, status: status == "ok" ? 200 : 503, headers: [("Cache-Control", "no-cache")])
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
