import ExampleApp
import HTTPTestSupport
import MicroHTTP
import ReMVVM
@testable import ReMVVMServer
import Testing

/// An `EventSource` treats any status but 200 as final: on an event stream, the `503` of the
/// connection limit and of shutdown would stop it for good. It gets a `200` holding `retry:`
/// instead (`docs/http-api.md`, "Connections and request framing", "Shutdown"); other clients
/// get the `503`.
@Suite struct EventSourceRefusalTests {
    private static let eventSource = [("Accept", "text/event-stream")]

    @Test func atTheConnectionLimitAnEventSourceIsToldToReconnectAndOthersGet503() throws {
        let live = try LiveServer(connectionLimit: 1)
        let held = try live.subscribe()  // the one connection the limit allows
        #expect(try held.nextEvent(timeout: .seconds(5))?.version == 0)

        for path in ["/events", "/viewmodels/events?name=counter", "/viewmodels/counter/events"] {
            let told = try live.get(path, headers: Self.eventSource + [("Last-Event-ID", "3")])
            #expect(told.status == 200, "\(path)")
            #expect(told.headers["Content-Type"] == "text/event-stream; charset=utf-8")
            #expect(told.headers["Connection"]?.lowercased() == "close")
            let text = String(decoding: told.body, as: UTF8.self)
            #expect(text.hasPrefix(": The server has its limit of 1 connections open"), "\(text)")
            #expect(text.hasSuffix("\nretry: 1000\n"), "\(text)")
            #expect(!text.contains("id:") && !text.contains("data:"), "no event: the client keeps its Last-Event-ID")
        }
        let curl = try live.get("/events")
        #expect(curl.status == 503, "a client that did not ask for an event stream gets the 503")
        #expect(curl.headers["Retry-After"] == "1")
        #expect(try live.get("/state", headers: Self.eventSource).status == 503, "only the stream routes")
        held.close()
        // The connection is free once libmicrohttpd has closed the stream's.
        var metricsResponse = try live.get("/metrics")
        #expect(waitUntil {
            if metricsResponse.status != 200, let again = try? live.get("/metrics") { metricsResponse = again }
            return metricsResponse.status == 200
        })
        let metrics = String(decoding: metricsResponse.body, as: UTF8.self)
        let refusals = metricSample(metrics, "http_requests_total", ["method": "GET", "route": "/events", "code": "503"])
        #expect(refusals == 2, "counted as the 503s they stand for")
    }

    @Test func whileShuttingDownAnEventSourceIsToldToReconnect() throws {
        let store = try Store.example()
        let service = ReMVVMService(store: store, actions: ExampleApp.actions, viewModels: ExampleApp.viewModels)
        let responder = service.responder()
        let told = responder.respond(
            to: .shuttingDown, method: .GET, path: "/events", headers: HTTPHeaders(Self.eventSource)
        )
        #expect(told.status == 200)
        guard case .bytes(let body) = told.body else {
            Issue.record("expected a body of bytes")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == ": \(RequestFailure.shuttingDown.message)\nretry: 1000\n")

        let refused = [
            responder.respond(to: .shuttingDown, method: .GET, path: "/events", headers: HTTPHeaders()),
            responder.respond(to: .shuttingDown, method: .HEAD, path: "/events", headers: HTTPHeaders(Self.eventSource)),
            responder.respond(to: .shuttingDown, method: .POST, path: "/actions", headers: HTTPHeaders(Self.eventSource)),
            responder.respond(to: .bodyTooLarge(limit: 10), method: .GET, path: "/events", headers: HTTPHeaders(Self.eventSource)),
        ]
        #expect(refused.map(\.status) == [503, 503, 503, 413])
    }
}
