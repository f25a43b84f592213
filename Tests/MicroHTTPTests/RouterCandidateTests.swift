import MicroHTTP
import Testing

/// The router tries only the parameter routes a path's first segment allows (those that start
/// with that literal, and those that start with a parameter): the precedence rules must read as
/// if it tried them all.
@Suite struct RouterCandidateTests {
    private func body(_ response: Response) -> String {
        response.bodyText
    }

    private func router() -> Router {
        var router = Router()
        router.add(.GET, "/:tenant/items") { _, parameters in .ok("tenant:" + (parameters["tenant"] ?? "?")) }
        router.add(.POST, "/stores/:id/items") { _, parameters in .ok("store:" + (parameters["id"] ?? "?")) }
        router.add(.GET, "/stores/:id/state") { _, parameters in .ok("state:" + (parameters["id"] ?? "?")) }
        router.add(.GET, "/:a/:b") { _, parameters in .ok("pair:\(parameters["a"] ?? "?")/\(parameters["b"] ?? "?")") }
        router.add(.GET, "/:a/x") { _, _ in .ok("never: /:a/:b came first") }
        return router
    }

    @Test func aRouteThatStartsWithAParameterMatchesAnyFirstSegment() {
        let router = router()
        #expect(body(router.respond(to: Request(method: .GET, path: "/acme/items"))) == "tenant:acme")
        // `stores` is the first segment of other routes: the parameter-first ones are tried too,
        // in the order added (`/:tenant/items` before `/:a/:b`).
        #expect(body(router.respond(to: Request(method: .GET, path: "/stores/items"))) == "tenant:stores")
        #expect(body(router.respond(to: Request(method: .GET, path: "/stores/other"))) == "pair:stores/other")
        // Three segments: not `/:tenant/items`; `/stores/:id/items` matches, for POST only.
        #expect(router.respond(to: Request(method: .GET, path: "/stores/s1/items")).status == 405)
    }

    @Test func theMoreSpecificRouteWinsWhateverItsFirstSegment() {
        let router = router()
        #expect(body(router.respond(to: Request(method: .POST, path: "/stores/s1/items"))) == "store:s1")
        #expect(body(router.respond(to: Request(method: .GET, path: "/stores/s1/state"))) == "state:s1")
        // Both `/:a/:b` and `/:a/x` match; the earlier added wins.
        #expect(body(router.respond(to: Request(method: .GET, path: "/q/x"))) == "pair:q/x")
    }

    @Test func aRefusedMethodListsTheMethodsOfEveryRouteThatMatches() {
        var router = router()
        router.add(.PUT, "/:tenant/:id/items") { _, _ in .ok("put") }
        let refused = router.respondRouted(to: Request(method: .DELETE, path: "/stores/s1/items"))
        #expect(refused.response.status == 405)
        #expect(refused.response.headers["Allow"] == "POST, PUT")
        #expect(refused.route?.pattern == "/stores/:id/items")
    }

    /// `route(matching:)` (the label of a refused or preflighted request) reads the same routes.
    @Test func theRouteMatchingAPathIsTheOneThatWouldAnswerIt() {
        let router = router()
        #expect(router.route(matching: "/stores/s1/items")?.pattern == "/stores/:id/items")
        #expect(router.route(matching: "/acme/items")?.pattern == "/:tenant/items")
        #expect(router.route(matching: "/stores/other")?.pattern == "/:a/:b")
        #expect(router.route(matching: "/a/b/c/d") == nil)
    }

    @Test func aPathThatNoRouteStartsWithIsNotFound() {
        var router = Router()
        router.add(.GET, "/stores/:id") { _, _ in .ok("store") }
        #expect(router.respond(to: Request(method: .GET, path: "/other/1")).status == 404)
        #expect(router.respond(to: Request(method: .GET, path: "/")).status == 404)
        #expect(router.respond(to: Request(method: .GET, path: "")).status == 404)
        #expect(body(router.respond(to: Request(method: .GET, path: "/stores/1"))) == "store")
    }
}
