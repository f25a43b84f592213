import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// Headers looked up by a ``HTTPHeaders/KnownName``: a request's head notes which known names it
/// carries, in any case, so that a lookup of one it lacks is a bit test; every lookup finds what
/// a lookup by the name's text would.
@Suite struct KnownNameLookupTests {
    private func bits(_ name: String) -> KnownFieldNames.Match {
        Array(name.utf8).withUnsafeBytes { bytes in KnownFieldNames.match(bytes.baseAddress!, count: bytes.count) }  // never empty here
    }

    @Test func aKnownNameHasItsBitInAnyCaseAndItsConstantOnlyAsSpelled() {
        #expect(bits("Sec-Fetch-Site").bit == HTTPHeaders.KnownName.secFetchSite.bit)
        #expect(bits("Sec-Fetch-Site").constant == "Sec-Fetch-Site")
        #expect(bits("sec-fetch-site").bit == HTTPHeaders.KnownName.secFetchSite.bit)
        #expect(bits("sec-fetch-site").constant == nil)
        #expect(bits("ACCESS-CONTROL-REQUEST-METHOD").bit == HTTPHeaders.KnownName.accessControlRequestMethod.bit)
        #expect(bits("X-Fetch-Site00").bit == 0)
        #expect(bits("Content-Lengtj").bit == 0)
    }

    @Test func aRequestsHeadersFindKnownNamesInAnyCaseAndLackTheOthers() throws {
        let requests = Mailbox<Request>()
        let server = try TestServer(responder: ClosureResponder { request in
            requests.post(request)
            return .ok("ok")
        })
        _ = try server.client().send(path: "/", headers: [
            ("content-type", "text/plain"), ("ORIGIN", "http://a.example"), ("If-Match", "\"1\""), ("If-Match", "\"2\""),
            ("X-Trace", "1"),
        ])
        let headers = try #require(requests.next(timeout: .seconds(5))).headers
        #expect(headers[.contentType] == "text/plain")
        #expect(headers[.origin] == "http://a.example")
        #expect(headers.list(.ifMatch) == "\"1\", \"2\"")
        #expect(headers.firstValue(named: .ifMatch)?.isRepeated == true)
        #expect(headers.contains(.host))
        for absent in [HTTPHeaders.KnownName.idempotencyKey, .secFetchSite, .authorization, .lastEventID, .cookie] {
            #expect(headers[absent] == nil && !headers.contains(absent) && headers.values(for: absent).isEmpty)
            #expect(headers[absent.text] == nil, "the same as by its text")
        }
        #expect(headers["x-trace"] == "1", "other names are looked up as before")
    }

    @Test func headersMadeOrChangedOutsideARequestStillFindEveryName() {
        var headers: HTTPHeaders = ["content-type": "application/json"]
        #expect(headers[.contentType] == "application/json")
        headers.add(name: "Idempotency-Key", value: "k1")
        #expect(headers[.idempotencyKey] == "k1")
        headers.remove(name: "Idempotency-Key")
        #expect(headers[.idempotencyKey] == nil)
    }

    @Test func aRequestsHeadersChangedAfterReadingFindTheNewField() throws {
        let requests = Mailbox<Request>()
        let server = try TestServer(responder: ClosureResponder { request in
            requests.post(request)
            return .ok("ok")
        })
        _ = try server.client().send(path: "/")
        var headers = try #require(requests.next(timeout: .seconds(5))).headers
        #expect(headers[.authorization] == nil)
        headers.add(name: "authorization", value: "Bearer x")
        #expect(headers[.authorization] == "Bearer x", "the note of known names is dropped with the change")
    }

    /// A request's fields carry their known name's bit: found by it whatever the case they came
    /// in, repeats told apart, names known as fields but absent answered by the note alone.
    @Test func aRequestsFieldsAreFoundByTheirBitInAnyCase() throws {
        let requests = Mailbox<Request>()
        let server = try TestServer(responder: ClosureResponder { request in
            requests.post(request)
            return .ok("ok")
        })
        _ = try server.client().send(path: "/", headers: [
            ("AUTHORIZATION", "Bearer a"), ("x-other", "1"), ("authorization", "Bearer b"), ("Last-Event-id", "7"),
        ])
        let headers = try #require(requests.next(timeout: .seconds(5))).headers
        #expect(headers.fieldsKnowTheirNames)
        #expect(headers[.authorization] == "Bearer a")
        #expect(headers.firstValue(named: .authorization).map { [$0.value, "\($0.isRepeated)"] } == ["Bearer a", "true"])
        #expect(headers.firstValue(named: .lastEventID).map { [$0.value, "\($0.isRepeated)"] } == ["7", "false"])
        #expect(headers.contains(.lastEventID) && !headers.contains(.cookie))
        #expect(headers.values(for: .authorization) == ["Bearer a", "Bearer b"])
    }
}
