/// The thin web client (`GET /app`) and its scripts and style sheet (`GET /app/<file>`):
/// `docs/navigation.md`. Compiled into the binary like the inspector's files (``InspectorAsset``),
/// served with the same headers (``InspectorAssets/securityHeaders``), open without a token.
enum AppAssets: EmbeddedPage {
    /// The page's path.
    static let pageLiteral: StaticString = "/app"

    /// Every file by its path.
    static let byPath = files(page: PackageResources.app_html, styleSheet: ("app.css", PackageResources.app_css), scripts: [
        "app.js": PackageResources.app_js, "session.js": PackageResources.session_js,
        "screens.js": PackageResources.screens_js, "backbutton.js": PackageResources.backbutton_js,
    ])
}
