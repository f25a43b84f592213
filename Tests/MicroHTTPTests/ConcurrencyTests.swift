import HTTPTestSupport
import MicroHTTP
import Testing

/// Many clients at once.
@Suite struct ConcurrencyTests {
    @Test func sixteenThreadsOfTwoHundredRequestsAreAllAnswered() throws {
        var router = Router()
        router.add(.GET, "/echo/:value") { _, parameters in .ok(parameters["value"] ?? "") }
        router.add(.POST, "/echo") { request, _ in
            Response(status: 200, body: .bytes(request.body))
        }
        let server = try TestServer(router: router)
        let port = server.port
        let errors = runOnThreads(16) { thread in
            let client = TestHTTPClient(port: port)
            for index in 0..<200 {
                let value = "t\(thread)-\(index)"
                let response = index % 2 == 0
                    ? try client.send(path: "/echo/\(value)")
                    : try client.send(method: "POST", path: "/echo", body: Array(value.utf8))
                guard response.status == 200, response.bodyString == value else {
                    throw TestHTTPError(code: .malformedResponse, message: "\(value): \(response.status) \(response.bodyString)")
                }
            }
            guard client.connectionsOpened == 1 else {
                throw TestHTTPError(code: .malformedResponse, message: "Keep-alive broke: \(client.connectionsOpened) connections")
            }
        }
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func streamsAndRequestsMixUnderLoad() throws {
        let server = try StreamingServer()
        let subscribers = try (0..<20).map { _ in try server.subscribe() }
        let port = server.port
        let streams = subscribers.map(\.1)
        let errors = runOnThreads(5) { thread in
            if thread == 0 {
                for id in 1...200 {
                    let event = sseEvent(id: id, data: "e\(id)")
                    for stream in streams {
                        stream.send(event)
                    }
                }
                return
            }
            let client = TestHTTPClient(port: port)
            for _ in 0..<200 {
                guard try client.send(path: "/plain").bodyString == "plain" else {
                    throw TestHTTPError(code: .malformedResponse, message: "Wrong body")
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        for (client, _) in subscribers {
            for id in 1...200 {
                #expect(try client.nextEvent(timeout: .seconds(5))?.id == "\(id)")
            }
        }
    }
}
