import HTTPTestSupport
import MicroHTTP
import Testing

/// The router behind a real server: status codes, `Allow`, `HEAD`.
@Suite struct RoutingLiveTests {
    private func server() throws -> TestServer {
        var router = Router()
        router.add(.GET, "/state") { _, _ in .ok("the state") }
        router.add(.POST, "/actions") { _, _ in .ok("accepted") }
        router.add(.GET, "/viewmodels/:name") { _, parameters in .ok("vm " + (parameters["name"] ?? "")) }
        return try TestServer(router: router)
    }

    @Test func pathParameterReachesTheHandler() throws {
        let server = try server()
        let response = try server.client().send(path: "/viewmodels/greeting?key=1")
        #expect(response.status == 200)
        #expect(response.bodyString == "vm greeting")
    }

    @Test func unknownPathGets404() throws {
        let server = try server()
        #expect(try server.client().send(path: "/missing").status == 404)
    }

    @Test func wrongMethodGets405WithAllow() throws {
        let server = try server()
        let client = server.client()
        let response = try client.send(method: "DELETE", path: "/state")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
        let post = try client.send(method: "GET", path: "/actions")
        #expect(post.status == 405)
        #expect(post.headers["Allow"] == "POST")
    }

    @Test func headGetsTheHeadersOfGetWithoutABody() throws {
        let server = try server()
        let client = server.client()
        let head = try client.send(method: "HEAD", path: "/state")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == "9")
        // The connection is still usable: the body really was not sent.
        #expect(try client.send(path: "/state").bodyString == "the state")
        #expect(client.connectionsOpened == 1)
    }
}
