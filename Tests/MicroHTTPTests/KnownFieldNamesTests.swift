import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// Header names handed out as constants when spelled as clients spell them; the request reads
/// the same whichever way a name came.
@Suite struct KnownFieldNamesTests {
    private func known(_ name: String) -> String? {
        Array(name.utf8).withUnsafeBytes { bytes in
            bytes.baseAddress.flatMap { KnownFieldNames.match($0, count: bytes.count).constant }
        }
    }

    private static let names = [
        "Host", "Accept", "Origin", "Cookie", "If-Match", "User-Agent", "Connection", "Content-Type", "Authorization",
        "If-None-Match", "Last-Event-ID", "Content-Length", "Sec-Fetch-Site", "Accept-Encoding", "Idempotency-Key",
        "Access-Control-Request-Method",
    ]

    @Test func aKnownNameSpelledExactlyIsItsConstant() {
        for name in Self.names {
            #expect(known(name) == name)
        }
    }

    /// Names are compared eight bytes at a time, the last eight overlapping: a byte changed at
    /// any position (first, middle, last, in the overlap) makes another name.
    @Test func aKnownNameWithAnyOneByteChangedIsNotItsConstant() {
        for name in Self.names {
            for position in 0..<name.utf8.count {
                var bytes = Array(name.utf8)
                bytes[position] = bytes[position] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
                let changed = String(decoding: bytes, as: UTF8.self)
                #expect(known(changed) == nil, "\(changed)")
            }
        }
    }

    @Test func anotherSpellingOrAnotherNameIsNotOne() {
        for name in ["host", "HOST", "Hosts", "Content-type", "X-Trace", "", "Authorisation", "Idempotency-Kez"] {
            #expect(known(name) == nil, "\(name)")
        }
    }

    @Test func onlyJSONAsAContentTypeIsAKnownValue() {
        func value(_ text: String, of name: String) -> String? {
            Array(text.utf8).withUnsafeBytes { bytes in
                bytes.baseAddress.flatMap { KnownFieldNames.value($0, count: bytes.count, of: name) }
            }
        }
        #expect(value("application/json", of: "Content-Type") == "application/json")
        #expect(value("application/json", of: "Accept") == nil)
        #expect(value("application/jsox", of: "Content-Type") == nil)
        #expect(value("Application/json", of: "Content-Type") == nil)
    }

    @Test func aRequestReadsTheSameWhicheverWayItsNamesCame() throws {
        let requests = Mailbox<Request>()
        let server = try TestServer(responder: ClosureResponder { request in
            requests.post(request)
            return .ok("ok")
        })
        _ = try server.client().send(path: "/", headers: [("content-type", "text/plain"), ("Content-Type", "application/json"), ("X-Trace", "1")])
        let request = try #require(requests.next(timeout: .seconds(5)))
        #expect(request.headers.values(for: "Content-Type") == ["text/plain", "application/json"])
        #expect(request.headers.map(\.name) == ["Host", "content-type", "Content-Type", "X-Trace"])
    }
}
