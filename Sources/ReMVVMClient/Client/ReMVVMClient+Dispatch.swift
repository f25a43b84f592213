import Foundation
public import ReMVVM

extension ReMVVMClient {
    /// Dispatches `action` (`POST /actions`) and returns what the server did with it.
    ///
    /// Exactly once: the request carries an `Idempotency-Key` drawn for this call (a
    /// ``TimeOrderedKey``) and is retried with it after a network error, a `503` or a `409` (the
    /// first attempt still in flight), with backoff (``retry``); the server answers a retry of a
    /// request it already processed with the answer it kept, and dispatches nothing again. Other
    /// `4xx` answers are not retried: they throw ``ClientError`` with the server's problem details.
    /// `ifMatch` applies the action only at that version (`412 version-mismatch` otherwise). Pass
    /// `idempotencyKey` to choose the key yourself (a queue that outlives the process, retried later
    /// with the same key).
    @discardableResult
    public func dispatch(_ action: any StoreAction & Encodable, ifMatch: VersionTag? = nil, idempotencyKey: String? = nil) async throws -> DispatchAnswer {
        try await post(path: "/actions", body: try encode([action], asBatch: false), ifMatch: ifMatch, key: idempotencyKey)
    }

    /// Dispatches `batch` in order, with no other client's action in between (`POST /actions` with
    /// an array), exactly once like ``dispatch(_:ifMatch:)``.
    @discardableResult
    public func dispatch(batch: [any StoreAction & Encodable], ifMatch: VersionTag? = nil, idempotencyKey: String? = nil) async throws -> DispatchAnswer {
        try await post(path: "/actions", body: try encode(batch, asBatch: true), ifMatch: ifMatch, key: idempotencyKey)
    }

    /// Runs the command `command` of the view model `viewModel` (for `key`, if given) with `body`
    /// as its JSON body (`POST /viewmodels/<name>/commands/<command>`), exactly once like
    /// ``dispatch(_:ifMatch:)``.
    @discardableResult
    public func command(
        _ command: String,
        of viewModel: String,
        key: String? = nil,
        body: (any Encodable & Sendable)? = nil,
        ifMatch: VersionTag? = nil
    ) async throws -> DispatchAnswer {
        let path = "/viewmodels/\(Self.percentEncoded(viewModel))/commands/\(Self.percentEncoded(command))"
        let bytes: [UInt8]
        do {
            bytes = try body.map { Array(try JSONEncoder.wire.encode($0)) } ?? Array("{}".utf8)
        } catch {
            throw ClientError(.coding, "the body of command \(command) of \(viewModel) could not be encoded: \(error)")
        }
        return try await post(path: path, query: key.map { [("key", $0)] } ?? [], body: bytes, ifMatch: ifMatch)
    }

    /// Dispatches the wire form of actions already encoded (`{"type": …, "payload": …}` or an
    /// array of them), exactly once like ``dispatch(_:ifMatch:)``: for tools that hold JSON, not
    /// the app's types.
    @discardableResult
    public func dispatch(json: [UInt8], ifMatch: VersionTag? = nil) async throws -> DispatchAnswer {
        try await post(path: "/actions", body: json, ifMatch: ifMatch)
    }

    /// The request body for `actions`: one action object, or an array when `asBatch`.
    func encode(_ actions: [any StoreAction & Encodable], asBatch: Bool) throws -> [UInt8] {
        var wire: [WireAction] = []
        for action in actions {
            guard let name = self.actions.name(of: action) else {
                throw ClientError(.unregisteredAction, "\(type(of: action)) has no wire name: register it with ActionNames.register(_:as:)")
            }
            wire.append(WireAction(type: name, payload: action))
        }
        do {
            if asBatch { return Array(try JSONEncoder.wire.encode(wire)) }
            return Array(try JSONEncoder.wire.encode(wire[0]))
        } catch {
            throw ClientError(.coding, "an action could not be encoded: \(error)")
        }
    }

    /// POSTs `body` with a new `Idempotency-Key`, retried as ``dispatch(_:ifMatch:)`` says, and
    /// reads the version answer.
    private func post(
        path: String,
        query: [(name: String, value: String)] = [],
        body: [UInt8],
        ifMatch: VersionTag?,
        key: String? = nil
    ) async throws -> DispatchAnswer {
        var headers: [(name: String, value: String)] = [("Idempotency-Key", key ?? TimeOrderedKey.draw())]
        if let ifMatch { headers.append(("If-Match", ifMatch.quoted)) }
        let response = try await sendRetrying(request("POST", url(path, query: query), headers: headers, body: body))
        switch response.head.status {
        case 200:
            guard let answer = try? JSONDecoder().decode(VersionAnswer.self, from: Data(response.body)) else {
                throw ClientError(.invalidResponse, "POST \(path) answered 200 without {\"version\": N}")
            }
            return .applied(version: answer.version)
        case 202:
            return .accepted
        default:
            throw Self.error(for: response, of: "POST \(path)")
        }
    }

    /// Sends `request`, retrying (with ``retry``'s backoff) after network errors and the answers
    /// that say "try again": `503`, `502`, `504`, and `409` (an idempotent request still in flight).
    /// Safe for idempotent requests only: reads, and writes with an `Idempotency-Key`.
    func sendRetrying(_ request: HTTPRequest) async throws -> HTTPResponse {
        var attempt = 1
        while true {
            let retryAfter: Duration?
            do {
                let response = try await transport.send(request)
                guard [409, 502, 503, 504].contains(response.head.status), retry.allowsAttempt(after: attempt) else {
                    return response
                }
                retryAfter = response.head[header: "Retry-After"].flatMap(Int64.init).map { .seconds($0) }
            } catch {
                try Task.checkCancellation()
                guard retry.allowsAttempt(after: attempt) else {
                    throw ClientError(.network, "\(request.method) \(request.url.path) failed after \(attempt) attempts: \(error)")
                }
                retryAfter = nil
            }
            try await Task.sleep(for: retry.delay(after: attempt, retryAfter: retryAfter))
            attempt += 1
        }
    }

    /// The ``ClientError`` for an error answer, with its problem details when it has some.
    static func error(for response: HTTPResponse, of what: String) -> ClientError {
        let problem = try? JSONDecoder().decode(ProblemDetails.self, from: Data(response.body))
        let detail = problem.map { [$0.title, $0.detail].compactMap { $0 }.joined(separator: ": ") }
            ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        return ClientError(.status(response.head.status), "\(what): \(response.head.status) \(detail)", problem: problem)
    }
}

/// `{"version": N}`.
private struct VersionAnswer: Decodable {
    let version: UInt64
}

/// An action on the wire: `{"type": <name>, "payload": <the action encoded>}`.
private struct WireAction: Encodable {
    let type: String
    let payload: any Encodable

    private enum CodingKeys: String, CodingKey {
        case type, payload
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try payload.encode(to: container.superEncoder(forKey: .payload))
    }
}

extension JSONEncoder {
    /// The encoder of what the client sends: compact, keys sorted, `/` not escaped (the server's
    /// own form).
    static var wire: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
