import Foundation
import HTTPTestSupport
@testable import ReMVVMServer
import Testing

/// The thin client's routes (docs/navigation.md): `GET /app` and its files from the binary, with
/// the inspector's security headers, open without a token while the store it shows is not.
@Suite struct AppRouteTests {
    @Test func thePageIsHTMLThatLoadsItsModuleAndStyleSheetUnderAScriptOnlyFromSelfPolicy() throws {
        let live = try LiveServer()
        let page = try live.get("/app").expect(status: 200, contentType: "text/html; charset=utf-8")
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"))
        #expect(page.bodyString.contains(#"<script type="module" src="app/app.js"></script>"#))
        #expect(page.bodyString.contains(#"href="app/app.css""#))
        #expect(!page.bodyString.contains("<script>"), "no inline script: the policy would block it")
    }

    /// Served the same way as the inspector's (docs/http-api.md, "The page and its files"): the
    /// same `Referrer-Policy` and `Content-Security-Policy`, exactly, on the page and a file.
    @Test func thePageAndItsFilesCarryTheInspectorsReferrerAndContentSecurityPolicies() throws {
        let live = try LiveServer()
        for path in ["/app", "/app/app.js"] {
            let response = try live.get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["Referrer-Policy"] == "no-referrer", "\(path)")
            #expect(response.headers["Content-Security-Policy"] == InspectorRouteTests.contentSecurityPolicy, "\(path)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            #expect(response.headers["Cache-Control"] == "no-cache", "\(path)")
        }
    }

    @Test func everyFileOfTheResourcesFolderIsServedWithItsTypeAndTag() throws {
        let live = try LiveServer()
        let resources = try ResourceFolder(area: "App")
        #expect(resources.files.count == AppAssets.byPath.count)
        for file in resources.files {
            let path = resources.path(of: file, page: "app.html", at: AppAssets.pagePath)
            let response = try live.get(path)
            #expect(response.status == 200, "\(file) is embedded but not served")
            #expect(response.body == (try resources.bytes(of: file)), "\(file)")
            #expect(response.headers["ETag"] == AppAssets.byPath[path]?.etag, "\(file)")
            let type = file.hasSuffix(".js") ? "text/javascript" : file.hasSuffix(".css") ? "text/css" : "text/html"
            #expect(response.headers["Content-Type"] == type + "; charset=utf-8", "\(file)")
        }
    }

    @Test func aCurrentTagGetsNotModifiedAndAnUnknownFileNotFound() throws {
        let live = try LiveServer()
        let script = try live.get("/app/app.js")
        let tag = try #require(script.headers["ETag"])
        #expect(try live.get("/app/app.js", headers: [("If-None-Match", tag)]).status == 304)
        #expect(try live.get("/app/nothing.js").status == 404)
    }

    @Test func thePageAndItsFilesNeedNoTokenButTheStoreDoes() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        #expect(try live.get("/app").status == 200)
        #expect(try live.get("/app/session.js").status == 200)
        #expect(try live.get("/app/nothing.js").status == 401, "only the client's own files are open")
        #expect(try live.get("/viewmodels/navigation").status == 401)
    }
}
