import MicroHTTP
import Testing

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndReturnsTheFirstValue() {
        let headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-A", "1"), ("x-a", "2")])
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["X-A"] == "1")
        #expect(headers.values(for: "x-A") == ["1", "2"])
        #expect(headers["missing"] == nil)
    }

    @Test func addKeepsOrderAndDuplicates() {
        var headers = HTTPHeaders()
        headers.add(name: "A", value: "1")
        headers.add(name: "B", value: "2")
        headers.add(name: "a", value: "3")
        #expect(headers.map(\.name) == ["A", "B", "a"])
        #expect(headers.count == 3)
    }

    @Test func replaceOrAddReplacesEveryFieldOfThatName() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers.replaceOrAdd(name: "A", value: "9")
        #expect(headers.map(\.value) == ["9", "2"])
        headers.replaceOrAdd(name: "C", value: "4")
        #expect(headers["c"] == "4")
    }

    @Test func methodsCompareByToken() {
        #expect(HTTPMethod(rawValue: "GET") == .GET)
        #expect(HTTPMethod(rawValue: "get") != .GET)
        #expect(HTTPMethod.PATCH.description == "PATCH")
    }

    /// Named methods compare by their code, others by text: every pair of tokens compares as its
    /// text does, and equal methods hash alike (a `Set` of them holds each token once).
    @Test func namedAndOtherMethodsCompareAsTheirTokens() {
        let tokens = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "get", "PROPFIND", "GETX", ""]
        let named: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS]
        let methods = tokens.map(HTTPMethod.init(rawValue:)) + named
        for lhs in methods {
            for rhs in methods {
                #expect((lhs == rhs) == (lhs.rawValue == rhs.rawValue), "\(lhs) == \(rhs)")
            }
        }
        #expect(Set(methods).count == tokens.count)
        #expect(named.map(\.rawValue) == Array(tokens.prefix(7)))
    }
}
