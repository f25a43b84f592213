@testable import MicroHTTP
import Testing

/// The router passes over a parameter route whose count of segments differs from the path's
/// (``RoutePattern/segmentCount(of:)``): that must never pass over one that matches.
struct RouteSegmentCountTests {
    private func count(_ path: String) -> Int {
        Array(path.utf8).withUnsafeBufferPointer(RoutePattern.segmentCount(of:))
    }

    @Test func aPathHasTheSegmentsTheMatcherCuts() {
        #expect(count("/") == 1)
        #expect(count("/state") == 1)
        #expect(count("/stores/s1/viewmodels/counter") == 4)
        #expect(count("/stores/s1/") == 3, "a trailing slash ends an empty segment")
        #expect(count("a/b") == 2)
    }

    @Test(arguments: ["/stores/:store/viewmodels/:name", "/stores/:store", "/:a/:b", "/items/:id/tags/:tag", "/x/:y/"])
    func everyPathAPatternMatchesHasItsCount(pattern: String) {
        let parsed = RoutePattern(pattern)
        let paths = ["/stores/s1/viewmodels/counter", "/stores/s1", "/stores/s1/", "/a/b", "/items/1/tags/red",
                     "/x/1/", "/x/1", "/", "/stores", "/stores//viewmodels/x"]
        for path in paths where parsed.match(path) != nil {
            #expect(count(path) == parsed.segmentCount, "\(path) matched by \(pattern)")
        }
        #expect(paths.contains { parsed.match($0) != nil }, "each pattern matches one of the paths")
    }
}
