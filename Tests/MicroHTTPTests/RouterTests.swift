import MicroHTTP
import Testing

/// Route logic, without a socket.
@Suite struct RouterTests {
    private func body(_ response: Response) -> String {
        response.bodyText
    }

    private func router() -> Router {
        var router = Router()
        router.add(.GET, "/state") { _, _ in .ok("state") }
        router.add(.POST, "/actions") { request, _ in .ok("actions:" + String(decoding: request.body, as: UTF8.self)) }
        router.add(.GET, "/viewmodels/:name") { _, parameters in .ok("viewmodel:" + (parameters["name"] ?? "?")) }
        router.add(.GET, "/viewmodels/names") { _, _ in .ok("names") }
        router.add(.DELETE, "/items/:id/tags/:tag") { _, parameters in
            .ok("\(parameters["id"] ?? "?")/\(parameters["tag"] ?? "?")")
        }
        router.add(.GET, "/") { _, _ in .ok("root") }
        return router
    }

    @Test func literalRouteAnswersItsMethod() {
        let response = router().respond(to: Request(method: .GET, path: "/state"))
        #expect(response.status == 200)
        #expect(body(response) == "state")
    }

    @Test func rootPathIsRoutable() {
        #expect(body(router().respond(to: Request(method: .GET, path: "/"))) == "root")
    }

    @Test func parameterSegmentCapturesItsValue() {
        let response = router().respond(to: Request(method: .GET, path: "/viewmodels/greeting"))
        #expect(body(response) == "viewmodel:greeting")
    }

    @Test func severalParametersAreCapturedByName() {
        let response = router().respond(to: Request(method: .DELETE, path: "/items/42/tags/red"))
        #expect(body(response) == "42/red")
    }

    /// A path without its leading `/` matches no route, literal or with parameters: a gate that
    /// reads paths from their `/` and the router never disagree on one.
    @Test func aPathWithoutItsLeadingSlashMatchesNothing() {
        for (method, path) in [(HTTPMethod.GET, "state"), (.GET, "viewmodels/greeting"), (.DELETE, "items/42/tags/red")] {
            #expect(router().respond(to: Request(method: method, path: path)).status == 404, "\(path)")
        }
        #expect(router().respond(to: Request(method: .DELETE, path: "/items/42/tags/red")).status == 200)
    }

    @Test func aParameterCapturesNonASCIITextAsItIs() {
        let response = router().respond(to: Request(method: .DELETE, path: "/items/zażółć/tags/日本"))
        #expect(body(response) == "zażółć/日本")
    }

    @Test func aLiteralSegmentMatchesItsExactBytesOnly() {
        var router = Router()
        router.add(.GET, "/café/:id") { _, parameters in .ok(parameters["id"] ?? "?") }
        #expect(body(router.respond(to: Request(method: .GET, path: "/café/1"))) == "1")
        // The same text decomposed (e + U+0301) is another path: matching is exact, not normalized.
        #expect(router.respond(to: Request(method: .GET, path: "/cafe\u{301}/1")).status == 404)
        #expect(router.respond(to: Request(method: .GET, path: "/caf/1")).status == 404)
    }

    @Test func literalPatternWinsOverParameterPattern() {
        #expect(body(router().respond(to: Request(method: .GET, path: "/viewmodels/names"))) == "names")
    }

    @Test func unknownPathIsNotFound() {
        #expect(router().respond(to: Request(method: .GET, path: "/nope")).status == 404)
    }

    @Test func parameterDoesNotMatchAnEmptyOrExtraSegment() {
        let router = router()
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/")).status == 404)
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/a/b")).status == 404)
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels")).status == 404)
    }

    @Test func trailingSlashIsADifferentPath() {
        #expect(router().respond(to: Request(method: .GET, path: "/state/")).status == 404)
    }

    @Test func wrongMethodIsNotAllowedAndListsAllowedMethods() {
        let response = router().respond(to: Request(method: .DELETE, path: "/state"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test func allowHeaderOmitsHeadWithoutGet() {
        let response = router().respond(to: Request(method: .GET, path: "/actions"))
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "POST")
    }

    @Test func headIsServedByTheGetRoute() {
        let response = router().respond(to: Request(method: .HEAD, path: "/viewmodels/x"))
        #expect(response.status == 200)
        #expect(body(response) == "viewmodel:x")
    }

    @Test func explicitHeadRouteWinsOverGet() {
        var router = router()
        router.add(.HEAD, "/state") { _, _ in Response(status: 204) }
        #expect(router.respond(to: Request(method: .HEAD, path: "/state")).status == 204)
    }

    @Test func laterRegistrationReplacesTheHandler() {
        var router = router()
        router.add(.GET, "/state") { _, _ in .ok("replaced") }
        router.add(.GET, "/viewmodels/:other") { _, parameters in .ok("other:" + (parameters["other"] ?? "?")) }
        #expect(body(router.respond(to: Request(method: .GET, path: "/state"))) == "replaced")
        #expect(body(router.respond(to: Request(method: .GET, path: "/viewmodels/x"))) == "viewmodel:x")
    }

    @Test func customNotFoundAndMethodNotAllowedAreUsed() {
        var router = router()
        router.notFound = { request in .text("missing \(request.path)", status: 404) }
        router.methodNotAllowed = { _, allowed in .text(allowed.map(\.rawValue).joined(separator: "+"), status: 405) }
        #expect(body(router.respond(to: Request(method: .GET, path: "/x"))) == "missing /x")
        let refused = router.respond(to: Request(method: .PUT, path: "/state"))
        #expect(body(refused) == "GET+HEAD")
        #expect(refused.headers["Allow"] == "GET, HEAD")
    }

    @Test func failuresUseTheFailureHandler() {
        var router = router()
        router.failure = { failure, method, path in .text("\(failure.status) \(method) \(path)", status: failure.status) }
        let response = router.respond(to: .bodyTooLarge(limit: 10), method: .POST, path: "/actions", headers: HTTPHeaders())
        #expect(response.status == 413)
        #expect(body(response) == "413 POST /actions")
    }

    @Test func defaultFailureResponseIsPlainText() {
        let response = Router().respond(to: .bodyTooLarge(limit: 10), method: .POST, path: "/", headers: HTTPHeaders())
        #expect(response.status == 413)
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test func responderWithoutFailureOverrideGetsTheDefault() {
        let responder = ClosureResponder { _ in .ok("x") }
        let response = responder.respond(to: .bodyTooLarge(limit: 1), method: .PUT, path: "/", headers: HTTPHeaders())
        #expect(response.status == 413)
        #expect(body(response).contains("1 bytes"))
    }

    /// Each pattern is numbered once, in the order first added, whatever its methods; the
    /// answer names the route that gave it (a 405 too), a 404 none.
    @Test func theAnsweringRouteIsNamedByPatternAndNumber() {
        var router = router()
        router.add(.POST, "/state") { _, _ in .ok("replace") }
        #expect(router.patternCount == 6)
        let numbers = Dictionary(router.numberedRoutes.map { ($0.route.pattern, $0.route.number) }) { first, _ in first }
        #expect(numbers == ["/state": 0, "/actions": 1, "/viewmodels/:name": 2, "/viewmodels/names": 3, "/items/:id/tags/:tag": 4, "/": 5])
        #expect(router.respondRouted(to: Request(method: .POST, path: "/state")).route == MatchedRoute(pattern: "/state", number: 0))
        #expect(router.respondRouted(to: Request(method: .GET, path: "/viewmodels/x")).route == MatchedRoute(pattern: "/viewmodels/:name", number: 2))
        let refused = router.respondRouted(to: Request(method: .PUT, path: "/items/1/tags/a"))
        #expect(refused.response.status == 405)
        #expect(refused.route == MatchedRoute(pattern: "/items/:id/tags/:tag", number: 4))
        #expect(router.respondRouted(to: Request(method: .GET, path: "/nowhere")).route == nil)
        #expect(router.route(matching: "/viewmodels/names") == MatchedRoute(pattern: "/viewmodels/names", number: 3))
    }
}
