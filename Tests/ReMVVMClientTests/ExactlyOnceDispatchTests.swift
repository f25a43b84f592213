import ConcurrencyKit
import ExampleApp
import Foundation
import ReMVVMClient
import Testing

/// A dispatch whose answer never reaches the client is retried with its `Idempotency-Key` and
/// applied once (docs/http-api.md, "Conditional and idempotent dispatch").
@Suite struct ExactlyOnceDispatchTests {
    /// The server receives the dispatch, journals it, and is stopped before the client gets the
    /// answer: the client sees the connection fail (as when the process is killed), retries while
    /// the server is away, and gets the kept answer from the restarted server.
    @Test func aDispatchWhoseServerStopsBeforeTheAnswerArrivesIsAppliedOnce() async throws {
        let server = try TestServer()
        let log = RequestLog()
        let lost = LockedFlag()
        let hooks = InterceptingTransport.Hooks(
            beforeSending: { log.sent($0) },
            afterAnswer: { request, head in
                log.answered(request, head)
                guard request.method == "POST", lost.setOnce() else { return }
                server.stop()
                Task.detached { try? server.startAgain() }  // back while the client backs off
                throw LostAnswer()
            }
        )
        let client = ReMVVMClient(
            baseURL: server.url,
            actions: exampleActions,
            transport: InterceptingTransport(base: URLSessionTransport(), hooks: hooks),
            retry: quickRetries
        )
        #expect(try await client.dispatch(Increase()) == .applied(version: 1))
        #expect(try await client.state(as: AppState.self).state.counter == 1, "applied once")
        let posts = log.requests("POST", "/actions")
        #expect(posts.count >= 2, "the first answer was lost, so the client retried")
        #expect(Set(posts.compactMap { $0.header("Idempotency-Key") }).count == 1, "every attempt carried the same key")
        #expect(log.answers("POST", "/actions").last?.headers["idempotent-replayed"] == "true", "the retry got the kept answer")
    }

    @Test func twoDispatchesAreTwoActionsEvenWithTheSameBody() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        #expect(try await client.dispatch(Increase()) == .applied(version: 1))
        #expect(try await client.dispatch(Increase()) == .applied(version: 2), "a new key per dispatch")
    }
}

/// A flag that is set once, from any thread.
final class LockedFlag: Sendable {
    private let flag = Lock(false)

    /// True the first time only.
    func setOnce() -> Bool {
        flag.withLock { flag in defer { flag = true }; return !flag }
    }
}
