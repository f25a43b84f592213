import Foundation
import HTTPTestSupport
@testable import ReMVVMServer
import Testing

/// The inspector's routes over real sockets (docs/http-api.md, "Inspector"): the page and its
/// files from the binary with their types, tags and security headers; open without a token,
/// while the data it reads is not.
@Suite struct InspectorRouteTests {
    @Test func thePageIsHTMLThatLoadsItsScriptAndStyleSheet() throws {
        let live = try LiveServer()
        let page = try live.get("/inspector").expect(status: 200, contentType: "text/html; charset=utf-8")
        #expect(page.headers["Cache-Control"] == "no-cache")
        #expect(page.headers["X-Content-Type-Options"] == "nosniff")
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"))
        #expect(page.headers["ETag"]?.hasPrefix("\"") == true)
        #expect(page.bodyString.hasPrefix("<!doctype html>"))
        #expect(page.bodyString.contains(#"src="inspector/main.js""#))
        #expect(page.bodyString.contains(#"href="inspector/inspector.css""#))
    }

    /// The policy docs/http-api.md states for the page and its files, in full.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The page and a file carry `Referrer-Policy: no-referrer` and the documented
    /// `Content-Security-Policy`, exactly (docs/http-api.md, "The page and its files").
    @Test func thePageAndItsFilesCarryTheDocumentedReferrerAndContentSecurityPolicies() throws {
        let live = try LiveServer()
        for path in ["/inspector", "/inspector/main.js"] {
            let response = try live.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["Referrer-Policy"] == "no-referrer", "\(path)")
            #expect(response.headers["Content-Security-Policy"] == Self.contentSecurityPolicy, "\(path)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
        }
    }

    @Test func thePageOnAnotherStoreIsTheSamePageWhichReadsTheStoreFromItsAddress() throws {
        let live = try LiveServer()
        let plain = try live.get("/inspector")
        let onStore = try live.get("/inspector?store=room-1")
        #expect(onStore.status == 200)
        #expect(onStore.body == plain.body)
        #expect(onStore.headers["ETag"] == plain.headers["ETag"])
        #expect(onStore.bodyString.contains(#"id="store-dialog""#))
    }

    @Test func everyFileIsServedFromTheBinaryWithItsTypeAndTag() throws {
        let live = try LiveServer()
        #expect(InspectorAssets.fileNames.contains("main.js") && InspectorAssets.fileNames.contains("worker.js"))
        for asset in InspectorAssets.byPath.values {
            let response = try live.get(asset.path)
            #expect(response.status == 200, "\(asset.path)")
            #expect(response.body == asset.body, "\(asset.path)")
            #expect(!asset.body.isEmpty, "\(asset.path)")
            #expect(response.headers["ETag"] == asset.etag, "\(asset.path)")
            #expect(response.headers["Cache-Control"] == "no-cache", "\(asset.path)")
            let type = response.headers["Content-Type"] ?? ""
            if asset.path.hasSuffix(".js") {
                #expect(type == "text/javascript; charset=utf-8", "\(asset.path)")
            } else if asset.path.hasSuffix(".css") {
                #expect(type == "text/css; charset=utf-8", "\(asset.path)")
            } else {
                #expect(type == "text/html; charset=utf-8", "\(asset.path)")
            }
        }
    }

    @Test func everyFileOfTheResourcesFolderIsServed() throws {
        let resources = try ResourceFolder(area: "Inspector")
        #expect(resources.files.count == InspectorAssets.byPath.count)
        for file in resources.files {
            let path = resources.path(of: file, page: "inspector.html", at: InspectorAssets.pagePath)
            let asset = try #require(InspectorAssets.byPath[path], "\(file) is embedded but not served")
            #expect(asset.body == (try resources.bytes(of: file)), "\(file)")
        }
    }

    @Test func aCurrentTagGetsNotModifiedAndHeadGetsTheHeadOnly() throws {
        let live = try LiveServer()
        let first = try live.get("/inspector/main.js")
        let tag = try #require(first.headers["ETag"])
        let again = try live.get("/inspector/main.js", headers: [("If-None-Match", "W/\"other\", \(tag)")])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == tag)
        #expect(again.headers["Cache-Control"] == "no-cache")
        let stale = try live.get("/inspector/main.js", headers: [("If-None-Match", "\"0000\"")])
        #expect(stale.status == 200 && stale.body == first.body)
        let head = try live.send(method: "HEAD", path: "/inspector")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers["Content-Type"] == "text/html; charset=utf-8")
    }

    @Test func anUnknownFileIsNotFound() throws {
        let live = try LiveServer()
        let response = try live.get("/inspector/secret.js")
        #expect(response.status == 404)
        #expect(response.problem?.title == "Not Found")
        #expect(try live.get("/inspector/").status == 404)
        #expect(try live.send(method: "POST", path: "/inspector").status == 405)
    }

    @Test func thePageIsOpenWithTokensButItsDataIsNot() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        for path in InspectorAssets.byPath.keys {
            #expect(try live.get(path).status == 200, "\(path) without a token")
            // The page's own cookie (or a stale token) does not get in the way of the page.
            let withCookie = try live.get(path, headers: [("Cookie", "remvvmAuthorization=\(AccessTokens.unknown)")])
            #expect(withCookie.status == 200, "\(path) with a cookie")
        }
        // Only the page's files: other paths under /inspector/ are not revealed.
        let unknown = try live.get("/inspector/secret.js")
        #expect(unknown.status == 401)
        #expect(unknown.problem?.type == "urn:remvvm:problem:unauthorized")
        let noToken = try live.get("/stats")
        #expect(noToken.status == 401)
        #expect(noToken.headers["WWW-Authenticate"] == #"Bearer realm="remvvm""#)
        #expect(try live.get("/stats", headers: [("Authorization", "Bearer \(AccessTokens.reader)")]).status == 200)
        #expect(try live.get("/stats", headers: [("Authorization", "Bearer \(AccessTokens.dispatcher)")]).status == 403)
        // The cookie counts for event streams only.
        #expect(try live.get("/stats", headers: [("Cookie", "remvvmAuthorization=\(AccessTokens.reader)")]).status == 401)
    }
}
