import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /state`: the state as JSON with the version as `ETag` (see ``VersionTags``); 304 when
    /// `If-None-Match` matches. Each version's answer is made once (``StateAnswerCache``).
    func getState(_ request: Request, in served: ServedStore<State>) -> Response {
        let snapshot = served.publisher.snapshot
        guard let answer = served.stateAnswers.answer(for: snapshot.version) ?? stateAnswer(snapshot, in: served) else {
            return Problem(title: "Internal Server Error", status: 500, detail: "the state cannot be encoded as JSON").response
        }
        if let condition = request.headers.list(.ifNoneMatch), Self.matches(answer.etag, condition) {
            return Response(status: 304, headers: HTTPHeaders([("ETag", answer.etag)]))
        }
        return answer.response
    }

    /// Makes and keeps the answer for `snapshot`; nil (logged) when its state cannot be encoded.
    private func stateAnswer(_ snapshot: StoreSnapshot<State>, in served: ServedStore<State>) -> StateAnswerCache.Answer? {
        do {
            let json = try served.stateCache.json(for: snapshot)
            let etag = served.versionTags.etag(snapshot.version)
            let response = JSONCoding.response(json, headers: [("ETag", etag), ("Cache-Control", "no-cache")])
            let answer = StateAnswerCache.Answer(version: snapshot.version, etag: etag, response: response.preparedForReuse())
            served.stateAnswers.remember(answer)
            return answer
        } catch {
            logger.error("state version \(snapshot.version) cannot be encoded: \(error)")
            return nil
        }
    }

    /// `GET /healthz`: `{"status":"ok","version":N}`. A replica of a shared log answers 503
    /// `{"status":"catching-up"|"unavailable"|"stopped","version":N,"replica":…,"reason":…}`
    /// until it follows the log, caught up (load balancers then send it no traffic).
    /// A journal whose commits fail answers 503 `{"status":"failing","version":N,"reason":…}`
    /// (writes get 503 then; reads go on). A server of many stores adds
    /// `"stores":{"loaded":N,"unhealthy":K,"failing":[…]}` (``StoresHealth``), and answers 503
    /// while any loaded store is not ok; the other fields stay `default`'s.
    func getHealth(in served: ServedStore<State>) -> Response {
        let version = served.publisher.snapshot.version
        let health = served.backend.health
        let stores = storesHealth
        var body = Array("{\"status\":\"\(health.status.rawValue)\",\"version\":\(version)".utf8)
        if let replica = health.replica {
            body += Array(",\"replica\":".utf8) + JSONCoding.string(replica)
        }
        if let reason = health.reason {
            body += Array(",\"reason\":".utf8) + JSONCoding.string(reason)
        }
        if let stores {
            body += Array(",\"stores\":".utf8) + stores.healthJSON(namingStores: !accessControl.isEnabled)
        }
        body.append(UInt8(ascii: "}"))
        let ok = health.status == .ok && (stores?.unhealthy ?? 0) == 0
        return JSONCoding.response(body, status: ok ? 200 : 503, headers: [("Cache-Control", "no-cache")])
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
