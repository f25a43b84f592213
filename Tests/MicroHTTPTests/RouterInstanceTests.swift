import MicroHTTP
import Testing

/// Paths added as instances of a parameter route (`/viewmodels/counter` of `/viewmodels/:name`):
/// found like literal paths, answered and reported as the parameter route would be.
@Suite struct RouterInstanceTests {
    private func router() -> Router {
        var router = Router()
        router.add(.GET, "/viewmodels/:name") { _, parameters in .ok("pattern:" + (parameters["name"] ?? "?")) }
        router.add(.POST, "/viewmodels/:name") { _, _ in .ok("posted") }
        router.add(.GET, "/viewmodels/events") { _, _ in .ok("events") }
        router.add(.GET, "/items/:id/tags/:tag") { _, _ in .ok("tags") }
        router.add(.GET, "/:any/tags/:tag") { _, _ in .ok("any") }
        return router
    }

    @Test func anInstanceAnswersWithThePatternsParametersAndIsReportedAsThePattern() {
        var router = router()
        let pattern = router.respondRouted(to: Request(method: .GET, path: "/viewmodels/other")).route
        let added = router.add(.GET, "/viewmodels/counter", instanceOf: "/viewmodels/:name") { _, parameters in
            .ok("instance:" + (parameters["name"] ?? "?"))
        }
        #expect(added)
        let answered = router.respondRouted(to: Request(method: .GET, path: "/viewmodels/counter"))
        #expect(answered.response.bodyText == "instance:counter")
        #expect(answered.route == pattern)
        #expect(router.route(matching: "/viewmodels/counter") == pattern)
        // HEAD through its GET, like every route; the other paths of the pattern as before.
        #expect(router.respond(to: Request(method: .HEAD, path: "/viewmodels/counter")).bodyText == "instance:counter")
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/other")).bodyText == "pattern:other")
        // Listed once, as the pattern: metrics and documents see the routes as registered.
        #expect(router.routes.filter { $0.pattern.hasPrefix("/viewmodels/") }.map(\.pattern).sorted()
            == ["/viewmodels/:name", "/viewmodels/:name", "/viewmodels/events"])
    }

    @Test func theInstancesOtherMethodsAreThePatterns() {
        var router = router()
        router.add(.GET, "/viewmodels/counter", instanceOf: "/viewmodels/:name") { _, _ in .ok("instance") }
        #expect(router.respond(to: Request(method: .POST, path: "/viewmodels/counter")).bodyText == "posted")
        // A method the pattern lacks is no instance's either, once the path is one.
        let deleteAdded = router.add(.DELETE, "/viewmodels/counter", instanceOf: "/viewmodels/:name") { _, _ in .ok("deleted") }
        #expect(!deleteAdded)
        let refused = router.respondRouted(to: Request(method: .DELETE, path: "/viewmodels/counter"))
        #expect(refused.response.status == 405)
        #expect(refused.response.headers["Allow"] == "GET, HEAD, POST")
        #expect(refused.route?.pattern == "/viewmodels/:name")
    }

    @Test func onlyAPathThePatternAnswersFirstIsAnInstance() {
        var router = router()
        let handler: Router.Handler = { _, _ in .ok("instance") }
        // Not matched by the pattern (two segments, none), or a literal route already; matched first
        // by a route of a longer literal prefix; a method the pattern lacks; no such pattern.
        let wronglyAdded = [
            ("/viewmodels/a/b", "/viewmodels/:name", HTTPMethod.GET), ("/viewmodels/", "/viewmodels/:name", .GET),
            ("/viewmodels/events", "/viewmodels/:name", .GET), ("/items/1/tags/a", "/:any/tags/:tag", .GET),
            ("/viewmodels/counter", "/viewmodels/:name", .DELETE), ("/viewmodels/counter", "/viewmodels/:other", .GET),
            ("/viewmodels/:x", "/viewmodels/:name", .GET),
        ].filter { path, pattern, method in router.add(method, path, instanceOf: pattern, handler) }
        #expect(wronglyAdded.isEmpty, "added: \(wronglyAdded.map(\.0))")
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/events")).bodyText == "events")
        #expect(router.respond(to: Request(method: .GET, path: "/items/1/tags/a")).bodyText == "tags")
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/counter")).bodyText == "pattern:counter")
        let other = router.add(.GET, "/other/tags/a", instanceOf: "/:any/tags/:tag", handler)
        #expect(other)
    }

    @Test func anInstanceTakesAnotherMethodOfItsPattern() {
        var router = router()
        router.add(.GET, "/viewmodels/counter", instanceOf: "/viewmodels/:name") { _, _ in .ok("instance") }
        let postAdded = router.add(.POST, "/viewmodels/counter", instanceOf: "/viewmodels/:name") { _, parameters in
            .ok("instance posted:" + (parameters["name"] ?? "?"))
        }
        #expect(postAdded)
        #expect(router.respond(to: Request(method: .POST, path: "/viewmodels/counter")).bodyText == "instance posted:counter")
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/counter")).bodyText == "instance")
    }

    @Test func aLiteralRouteAddedLaterTakesThePathOver() {
        var router = router()
        router.add(.GET, "/viewmodels/counter", instanceOf: "/viewmodels/:name") { _, _ in .ok("instance") }
        let before = router.patternCount
        router.add(.GET, "/viewmodels/counter") { _, _ in .ok("literal") }
        let answered = router.respondRouted(to: Request(method: .GET, path: "/viewmodels/counter"))
        #expect(answered.response.bodyText == "literal")
        #expect(answered.route == MatchedRoute(pattern: "/viewmodels/counter", number: before))
        #expect(router.routes.contains { $0.pattern == "/viewmodels/counter" })
    }
}
