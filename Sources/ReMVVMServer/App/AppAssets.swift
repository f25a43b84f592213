/// The thin web client (`GET /app`) and its scripts and style sheet (`GET /app/<file>`):
/// `docs/navigation.md`. Compiled into the binary like the inspector's files (``InspectorAsset``),
/// served with the same headers (``InspectorAssets/securityHeaders``), open without a token.
enum AppAssets: EmbeddedPage {
    /// The page's path.
    static let pagePath = "/app"

    /// Every file by its path.
    static let byPath: [String: InspectorAsset] = {
        let script = "text/javascript; charset=utf-8"
        let files: [InspectorAsset] = [
            InspectorAsset(path: pagePath, contentType: "text/html; charset=utf-8", body: PackageResources.app_html),
            InspectorAsset(path: pagePath + "/app.css", contentType: "text/css; charset=utf-8", body: PackageResources.app_css),
            InspectorAsset(path: pagePath + "/app.js", contentType: script, body: PackageResources.app_js),
            InspectorAsset(path: pagePath + "/session.js", contentType: script, body: PackageResources.session_js),
            InspectorAsset(path: pagePath + "/screens.js", contentType: script, body: PackageResources.screens_js),
            InspectorAsset(path: pagePath + "/backbutton.js", contentType: script, body: PackageResources.backbutton_js),
        ]
        return Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0) })
    }()
}
