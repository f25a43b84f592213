@testable import ReMVVMServer
import Testing

/// What the access gate tells from a path's bytes in one look (``GatedPath``), and the byte
/// comparisons it is made of (``PathBytes``): each the same as the question asked of the text.
@Suite struct GatedPathTests {
    @Test(arguments: [
        "/healthz", "/healthz/", "/health", "/inspector", "/inspector/inspector.js", "/inspector/none.js", "/inspectors",
        "/app", "/app/app.js", "/app/none.js", "/apps", "/access", "/access/", "/actions", "/state", "/events",
        "/viewmodels/events", "/viewmodels/counter/events", "/viewmodels/counter", "/stores", "/stores/",
        "/stores/s1/events", "/stores/s1/viewmodels/counter/events", "/stores/s1/state", "/stores/events", "/store",
        "/Stores/s1/events", "/", "", "/h", "/a", "/storés/s1/events", "/inspector/app.js",
    ])
    func everyAnswerIsTheOneTheTextGives(path: String) {
        let gated = GatedPath(path)
        let isOpen = path == "/healthz" || InspectorAssets.byPath[path] != nil || AppAssets.byPath[path] != nil
        #expect(gated.isOpen == isOpen)
        #expect(gated.isAccess == (path == "/access"))
        #expect(gated.isUnderStores == path.hasPrefix("/stores"))
        let streams = ["/events", "/viewmodels/events"]
        let isStream: (Substring) -> Bool = { rest in
            streams.contains(String(rest)) || (rest.hasPrefix("/viewmodels/") && rest.hasSuffix("/events"))
        }
        let underStore = path.hasPrefix("/stores/") ? path.dropFirst(8).drop { $0 != "/" } : nil
        #expect(gated.isEventStream == (isStream(path[...]) || underStore.map(isStream) == true), "\(path)")
        #expect(AccessGate.isOpen(path: path) == isOpen)
    }

    @Test func theAssetsArePagesOfTheirOwnPaths() {
        #expect(InspectorAssets.isAsset(path: InspectorAssets.pagePath))
        #expect(AppAssets.isAsset(path: AppAssets.pagePath))
        #expect(!AppAssets.isAsset(path: InspectorAssets.pagePath))
        #expect(InspectorAssets.pagePath == "/inspector" && AppAssets.pagePath == "/app")
    }

    @Test(arguments: [
        ("/stores", "/stores", true, true, true), ("/stores/s1", "/stores", false, true, false),
        ("/store", "/stores", false, false, false), ("", "", true, true, true), ("/a", "", false, true, true),
        ("/events", "/events", true, true, true), ("/x/events", "/events", false, false, true),
        ("/Stores", "/stores", false, false, false), ("/storés", "/stores", false, false, false),
    ])
    func bytesCompareWithALiteralAsTheirText(path: String, literal: StaticString, equals: Bool, starts: Bool, ends: Bool) {
        Array(path.utf8).withUnsafeBufferPointer { buffer in
            #expect(buffer[...].equals(literal) == equals)
            #expect(buffer[...].starts(with: literal) == starts)
            #expect(buffer[...].ends(with: literal) == ends)
            // A slice that does not start at the buffer's start.
            let shifted = Array(("//" + path).utf8)
            shifted.withUnsafeBufferPointer { longer in
                let slice = longer[2...]
                #expect(slice.equals(literal) == equals && slice.starts(with: literal) == starts && slice.ends(with: literal) == ends)
            }
        }
    }
}
