#if canImport(Glibc)
import Glibc
#endif
import HTTPTestSupport
@testable import MicroHTTP
import Testing

/// A query too large for the connection's memory pool is answered `414` at once, never left
/// waiting for the request-head timeout (libmicrohttpd 0.9.75 drops its own answer there:
/// `docs/libmicrohttpd-errors.md`).
@Suite struct QueryLimitTests {
    /// A server answering with the number of query parameters it received.
    private static func server() throws -> TestServer {
        try TestServer(responder: ClosureResponder { request in .ok("\(request.queryItems.count)") })
    }

    private static func query(_ count: Int, name: (Int) -> String = { "a\($0)" }) -> String {
        (0..<count).map { name($0) + "=1" }.joined(separator: "&")
    }

    /// 241 short parameters (a 1.3 KB query) used to hang the connection for 15 s at the 16 KiB
    /// pool, and so did 500 and 1,200; 10,000 overflow the read buffer itself (libmicrohttpd's own 414). The client gives up after 5 s, well
    /// before the 15 s head timeout that used to be the only end.
    @Test(arguments: [241, 500, 1_200, 10_000])
    func aQueryTooLargeForTheConnectionsMemoryIsAnswered414AtOnce(parameters: Int) throws {
        let server = try Self.server()
        let client = TestHTTPClient(port: server.port, timeout: .seconds(5))
        let response = try client.send(path: "/items?" + Self.query(parameters))
        #expect(response.status == 414)
        #expect(response.headers["Connection"]?.lowercased() == "close")
        if parameters < 10_000 {
            #expect(response.bodyString.contains("query is too large"), "\(response.bodyString)")
        }
        // The server goes on answering on a new connection.
        #expect(try TestHTTPClient(port: server.port, timeout: .seconds(5)).send(path: "/items?a=1").bodyString == "1")
    }

    @Test func aQueryWithinTheLimitIsServedWhole() throws {
        let server = try Self.server()
        let client = TestHTTPClient(port: server.port, timeout: .seconds(5))
        // 100 parameters in a 596-byte target: 596 + 64 per parameter = 6,996 of the 8,192 allowed.
        #expect(try client.send(path: "/items?" + Self.query(100)).bodyString == "100")
        // Few parameters but a long value weigh their length.
        let long = String(repeating: "v", count: 7_000)
        #expect(try client.send(path: "/items?token=" + long).bodyString == "1")
    }

    @Test func theLimitIsHalfTheConnectionMemoryCountingEachParameter() {
        let limit = QueryLimit(connectionMemoryLimit: 16_384)
        #expect(limit.maxBytes == 8_192)
        func refuses(_ target: String) -> Bool {
            target.withCString { pointer in
                guard let question = strchr(pointer, Int32(UInt8(ascii: "?"))) else { return false }
                return limit.refuses(target: pointer, query: question + 1)
            }
        }
        // 120 empty parameters: 3 + 119 + 120 * 64 = 7,802 bytes.
        #expect(!refuses("/x?" + String(repeating: "&", count: 119)))
        // 128 empty parameters: 3 + 127 + 128 * 64 = 8,322 bytes.
        #expect(refuses("/x?" + String(repeating: "&", count: 127)))
        #expect(!refuses("/x?" + String(repeating: "v", count: 8_100)))
        #expect(refuses("/x?" + String(repeating: "v", count: 8_130)))
    }
}
