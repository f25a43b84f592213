import HTTPTestSupport
import Testing

/// `GET /viewmodels/events` with hundreds of `name=` parameters is answered at once: `414`
/// problem+json, before libmicrohttpd parses a query that would fill the connection's memory.
/// Before, 500 to 1,200 names got no answer until the 15 s request-head timeout. (A target
/// longer than the connection's memory, about 16 KB, gets libmicrohttpd's own `414` page.)
@Suite struct OversizedQueryTests {
    @Test(arguments: [500, 1_200])
    func hundredsOfViewModelNamesAreAnswered414AtOnce(names: Int) throws {
        let live = try LiveServer()
        let client = TestHTTPClient(port: live.port, timeout: .seconds(5))
        // 1,200 names make a 9.9 KB target: it fits the connection's read buffer.
        let query = (0..<names).map { "name=v\($0)" }.joined(separator: "&")
        let response = try client.send(path: "/viewmodels/events?" + query, headers: [("Accept", "text/event-stream")])
        #expect(response.status == 414)
        #expect(response.problem?.title == "URI Too Long")
        #expect(response.problem?.detail.contains("query is too large") == true, "\(response.bodyString)")
    }

    @Test func aTargetLongerThanTheConnectionsMemoryGetsLibmicrohttpdsOwn414() throws {
        let live = try LiveServer()
        let client = TestHTTPClient(port: live.port, timeout: .seconds(5))
        let query = (0..<1_200).map { "name=counter\($0)" }.joined(separator: "&")
        let response = try client.send(path: "/viewmodels/events?" + query, headers: [("Accept", "text/event-stream")])
        #expect(response.status == 414)
        #expect(response.headers["Connection"]?.lowercased() == "close")
    }
}
