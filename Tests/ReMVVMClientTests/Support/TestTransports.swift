import ConcurrencyKit
import Foundation
import ReMVVMClient

/// A transport that hands every request to `base` after `intercept` had its say: tests use it to
/// count requests, delay them, or lose an answer on purpose.
struct InterceptingTransport: HTTPTransport {
    /// What to do around one request: runs before it is sent (`beforeSending`) and after its answer
    /// came (`afterAnswer`, which may throw to lose the answer).
    struct Hooks: Sendable {
        var beforeSending: @Sendable (HTTPRequest) async throws -> Void = { _ in }
        var afterAnswer: @Sendable (HTTPRequest, HTTPResponseHead) async throws -> Void = { _, _ in }
    }

    let base: any HTTPTransport
    let hooks: Hooks

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await hooks.beforeSending(request)
        let response = try await base.send(request)
        try await hooks.afterAnswer(request, response.head)
        return response
    }

    func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        try await hooks.beforeSending(request)
        let response = try await base.stream(request)
        try await hooks.afterAnswer(request, response.head)
        return response
    }
}

/// The network failure a test makes up: the answer that was lost.
struct LostAnswer: Error {}

/// Requests and answers a test saw, in order.
final class RequestLog: Sendable {
    private let entries = Lock<[(request: HTTPRequest, status: Int?, headers: [String: String])]>([])

    func sent(_ request: HTTPRequest) {
        entries.withLock { $0.append((request, nil, [:])) }
    }

    func answered(_ request: HTTPRequest, _ head: HTTPResponseHead) {
        entries.withLock { $0.append((request, head.status, head.headers)) }
    }

    /// Every answer to requests of `method` to a path ending with `suffix`.
    func answers(_ method: String, _ suffix: String) -> [(request: HTTPRequest, status: Int, headers: [String: String])] {
        entries.withLock { entries in
            entries.compactMap { entry in
                guard let status = entry.status, entry.request.method == method, entry.request.url.path.hasSuffix(suffix) else { return nil }
                return (entry.request, status, entry.headers)
            }
        }
    }

    /// Every request of `method` (any when empty) to a path ending with `suffix`, as sent.
    func requests(_ method: String, _ suffix: String) -> [HTTPRequest] {
        entries.withLock { entries in
            entries.compactMap { entry in
                let matches = entry.status == nil && (method.isEmpty || entry.request.method == method)
                return matches && entry.request.url.path.hasSuffix(suffix) ? entry.request : nil
            }
        }
    }
}

/// Answers the first `POST` itself, `500` with the problem a server sends for an action it cannot
/// journal, without sending it; everything else goes to `base`.
final class FirstPostAnswered500: HTTPTransport {
    let base: any HTTPTransport
    private let answered = Lock(false)

    init(base: any HTTPTransport) {
        self.base = base
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.method == "POST", answered.withLock({ answered in defer { answered = true }; return !answered }) {
            let problem = #"{"type":"urn:remvvm:problem:action-not-journaled","title":"Internal Server Error","status":500,"detail":"no wire name"}"#
            return HTTPResponse(head: HTTPResponseHead(status: 500, headers: ["Content-Type": "application/problem+json"]), body: Array(problem.utf8))
        }
        return try await base.send(request)
    }

    func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        try await base.stream(request)
    }
}
