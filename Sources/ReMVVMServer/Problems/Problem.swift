import Foundation
public import MicroHTTP

/// An RFC 9457 problem detail: the body of every error response (`application/problem+json`).
///
/// `type` is `about:blank` for plain HTTP errors (the title is then the status phrase) and a
/// `urn:remvvm:problem:<name>` URI for the service's own problems, so clients can switch on it.
public struct Problem: Error, Sendable, Equatable {
    /// A URI identifying the kind of problem.
    public var type: String
    /// A short summary of the kind of problem.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong this time, for a person.
    public var detail: String
    /// The names a client may use instead (unknown action types, unknown view models).
    public var known: [String]?
    /// The JSON path of the offending field, e.g. `payload.firstName`.
    public var field: String?
    /// The position of the offending action in a batch.
    public var index: Int?
    /// The store's version when a precondition (`If-Match`) failed.
    public var currentVersion: UInt64?
    /// Extra header fields to send with the problem (e.g. `Allow`); not part of the body.
    public var headers: [String: String] = [:]

    /// Creates a problem; `headers` are sent with it (``headers``).
    public init(
        type: String = "about:blank",
        title: String,
        status: Int,
        detail: String,
        known: [String]? = nil,
        field: String? = nil,
        index: Int? = nil,
        headers: [String: String] = [:]
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.known = known
        self.field = field
        self.index = index
        self.headers = headers
    }

    /// The problem as an HTTP response.
    public var response: Response {
        var headers = HTTPHeaders([("Content-Type", "application/problem+json")])
        for (name, value) in self.headers.sorted(by: { $0.key < $1.key }) {
            headers.add(name: name, value: value)
        }
        let body = (try? jsonBody()) ?? Array(
            #"{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"problem not encodable"}"#.utf8
        )
        return Response(status: status, headers: headers, body: .bytes(body))
    }
}

extension Problem {
    /// The body, members in the order RFC 9457 lists them: type, title, status, detail, then extensions.
    func jsonBody() throws -> [UInt8] {
        var body = Array("{\"type\":".utf8) + (try JSONCoding.encode(type))
        body += Array(",\"title\":".utf8) + (try JSONCoding.encode(title))
        body += Array(",\"status\":\(status),\"detail\":".utf8) + (try JSONCoding.encode(detail))
        if let known {
            body += Array(",\"known\":".utf8) + (try JSONCoding.encode(known))
        }
        if let field {
            body += Array(",\"field\":".utf8) + (try JSONCoding.encode(field))
        }
        if let index {
            body += Array(",\"index\":\(index)".utf8)
        }
        if let currentVersion {
            body += Array(",\"currentVersion\":\(currentVersion)".utf8)
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// A service-specific problem type URI.
    static func type(_ name: String) -> String {
        "urn:remvvm:problem:\(name)"
    }

    /// 503 `urn:remvvm:problem:<name>` with `Retry-After: 1`: a condition that passes (an outage,
    /// a store or replica not ready); `detail` says what was not done. Without `passes`, no
    /// `Retry-After`: a condition that retrying here does not mend.
    static func serviceUnavailable(_ name: String, detail: String, passes: Bool = true) -> Problem {
        Problem(type: type(name), title: "Service Unavailable", status: 503, detail: detail, headers: passes ? ["Retry-After": "1"] : [:])
    }

    static func notFound(path: String) -> Problem {
        Problem(
            title: "Not Found",
            status: 404,
            detail: "no resource at \(path); see GET /healthz, /state, /viewmodels, /events and POST /actions"
        )
    }

    static func methodNotAllowed(method: String, path: String, allowed: [String]) -> Problem {
        Problem(
            title: "Method Not Allowed",
            status: 405,
            detail: "\(method) is not allowed on \(path); allowed: \(allowed.joined(separator: ", "))",
            headers: ["Allow": allowed.joined(separator: ", ")]
        )
    }

    static func contentTooLarge(limit: Int?) -> Problem {
        Problem(
            title: "Content Too Large",
            status: 413,
            detail: "the request body is larger than " + (limit.map { "the limit of \($0) bytes" } ?? "the server accepts")
        )
    }

    /// The problem for a request the HTTP layer refused before routing.
    static func refused(_ failure: RequestFailure) -> Problem {
        switch failure.code {
        case .bodyTooLarge:
            return contentTooLarge(limit: failure.limit)
        default:
            return Problem(title: failure.title, status: failure.status, detail: failure.message)
        }
    }

    /// 422: a middleware rejected the action at `index` of a batch of `count` (the ones before it
    /// were applied).
    static func actionRejected(_ reason: String, index: Int, of count: Int) -> Problem {
        let position = count > 1 ? "action [\(index)] was rejected: " : "the action was rejected: "
        let applied = count > 1 && index > 0 ? "; the actions before it were applied" : ""
        return Problem(
            type: type("action-rejected"),
            title: "Action rejected",
            status: 422,
            detail: position + reason + applied,
            index: count > 1 ? index : nil
        )
    }

    /// The journal cannot make actions durable right now (disk full, I/O error, PostgreSQL
    /// unreachable, stopping): nothing was dispatched; the client may retry.
    static var journalUnavailable: Problem {
        journalUnavailable(detail: "the journal cannot make actions durable right now; nothing was dispatched, retry later")
    }

    /// The request's actions were applied but their commit failed (disk full, I/O error): not
    /// acknowledged, yet the journal keeps them and commits them once it can, so they may still
    /// take effect. Only a retry with the same `Idempotency-Key` is safe.
    static var journalCommitFailed: Problem {
        journalUnavailable(
            detail: "the journal could not make the action durable (disk full or I/O error): it is not acknowledged, but it is kept and may still be committed once the disk recovers; retry with the same Idempotency-Key to apply it exactly once"
        )
    }

    /// A replica found this request's `Idempotency-Key` stored by another replica meanwhile, but
    /// could not read its answer: the request is not processed again; a retry with the key gets
    /// the stored answer once the log can be read.
    static var keyStoredElsewhereUnreadable: Problem {
        journalUnavailable(
            detail: "another replica stored a request with this Idempotency-Key meanwhile, but its answer cannot be read right now; nothing was dispatched here: retry with the same key to get that answer"
        )
    }

    /// The action log cannot be read now (the shared log cannot be reached, or the server is
    /// stopping): an outage, not a bug.
    static var actionLogUnavailable: Problem {
        journalUnavailable(detail: "the action log cannot be read now (the shared log cannot be reached); retry later")
    }

    private static func journalUnavailable(detail: String) -> Problem {
        serviceUnavailable("journal-unavailable", detail: detail)
    }

    /// 400: an `Idempotency-Key` header that is not 1–255 visible ASCII characters.
    static var invalidIdempotencyKey: Problem {
        Problem(
            type: type("invalid-idempotency-key"),
            title: "Bad Request",
            status: 400,
            detail: "Idempotency-Key must be 1 to \(IdempotencyKey.maxLength) visible ASCII characters (no spaces); nothing was applied"
        )
    }

    /// 422: an `Idempotency-Key` already used for a request with another body.
    static var idempotencyKeyReused: Problem {
        Problem(
            type: type("idempotency-key-reused"),
            title: "Unprocessable Content",
            status: 422,
            detail: "this Idempotency-Key was used for a different request (another path or body); use a new key for a new request; nothing was applied"
        )
    }

    /// 409: a retry while the request that first used its key is still being processed.
    static var idempotencyKeyInFlight: Problem {
        Problem(
            type: type("idempotency-key-in-flight"),
            title: "Conflict",
            status: 409,
            detail: "a request with this Idempotency-Key is still being processed; retry later to get its answer",
            headers: ["Retry-After": "1"]
        )
    }

    /// 401: no credential, or one that does not authenticate. `challenge` is the
    /// `WWW-Authenticate` value (RFC 6750 §3); `detail` never contains a token.
    static func unauthorized(detail: String, challenge: String) -> Problem {
        Problem(type: type("unauthorized"), title: "Unauthorized", status: 401, detail: detail, headers: ["WWW-Authenticate": challenge])
    }

    /// 403: a valid token without the scope the request needs (`error="insufficient_scope"`).
    static func insufficientScope(_ scope: String, method: String, path: String, challenge: String) -> Problem {
        Problem(
            type: type("insufficient-scope"),
            title: "Forbidden",
            status: 403,
            detail: "\(method) \(path) needs the \(scope) scope, which this token does not grant",
            headers: ["WWW-Authenticate": challenge]
        )
    }

    static func unsupportedMediaType(_ contentType: String?) -> Problem {
        Problem(
            title: "Unsupported Media Type",
            status: 415,
            detail: "send actions and command bodies as Content-Type: application/json"
                + (contentType.map { " (got \($0))" } ?? " (no Content-Type was given)")
        )
    }
}
