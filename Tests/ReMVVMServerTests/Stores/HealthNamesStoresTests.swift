import AccessControl
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import Testing

/// `GET /healthz` takes no token: with access control on it still says how many loaded stores are
/// not ok, but names none of them (docs/http-api.md, "Operations"; docs/security.md).
@Suite struct HealthNamesStoresTests {
    static let token = "ops-Hx41t"

    /// A server whose store `room-3` journals into a storage whose commits fail.
    final class FailingStoreServer: Sendable {
        let server: ReMVVMServer<AppState>
        let failing = MemoryJournalStorage()
        private let responder: ServiceResponder

        init(accessControl: BearerAuthorizer) throws {
            server = try ReMVVMServer.example(
                http: HTTPServerConfiguration(), service: ServiceConfiguration(), accessControl: accessControl
            )
            let failing = failing
            failing.failAppends(with: JournalError(code: .writeFailed, message: "disk full (test)"))
            server.service.serveStores(StoreServing(
                catalog: MemoryStoreCatalog(),
                storage: .journal({ id in id.rawValue == "room-3" ? failing : MemoryJournalStorage() }),
                makeStore: { try Store.example() }
            ))
            responder = server.service.responder()
            try server.service.start()
        }

        deinit {
            server.shutdown()
        }

        func send(_ method: String, _ path: String, body: String = "") -> (status: Int, body: String) {
            var headers: HTTPHeaders = ["Authorization": "Bearer \(HealthNamesStoresTests.token)"]
            if !body.isEmpty { headers.add(name: "Content-Type", value: "application/json") }
            let request = Request(method: HTTPMethod(rawValue: method), path: path, headers: headers, body: Array(body.utf8))
            guard let response = responder.respond(to: request).settled() else { return (0, "no answer within 30 s") }
            return (response.status, String(decoding: response.completeBodyBytes, as: UTF8.self))
        }

        /// `/healthz` once `room-3`'s failed commit made it unhealthy.
        func unhealthyAnswer() throws -> (status: Int, body: String) {
            #expect(send("PUT", "/stores/room-3").status == 201)
            #expect(send("POST", "/stores/room-3/actions", body: #"{"type":"increase"}"#).status == 503)
            var answer = send("GET", "/healthz")
            #expect(waitUntil(timeout: .seconds(10)) {
                answer = self.send("GET", "/healthz")
                return answer.status == 503
            }, "\(answer.body)")
            return answer
        }
    }

    @Test func withoutTokensTheFailingStoresAreNamed() throws {
        let server = try FailingStoreServer(accessControl: BearerAuthorizer())
        let answer = try server.unhealthyAnswer()
        #expect(answer.body.contains(#""unhealthy":1,"failing":[{"id":"room-3","status":"failing","reason":"#), "\(answer.body)")
    }

    @Test func withTokensTheyAreCountedButNotNamed() throws {
        let server = try FailingStoreServer(accessControl: try AccessTokens.authorizer(staticTokens: "\(Self.token)=read+dispatch+manage"))
        let answer = try server.unhealthyAnswer()
        #expect(answer.body.hasSuffix(#""stores":{"loaded":2,"unhealthy":1}}"#), "\(answer.body)")
        #expect(!answer.body.contains("room-3") && !answer.body.contains("disk full"))
    }
}
