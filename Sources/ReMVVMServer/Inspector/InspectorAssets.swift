import Crypto

/// One file of the inspector page, compiled into the binary (SwiftPM `embedInCode`: the files in
/// `Inspector/Resources` become `PackageResources.<file_name>` byte arrays), so the single
/// executable serves the page with nothing to install or copy.
struct InspectorAsset: Sendable {
    /// Its path on the server, e.g. `/inspector/main.js`.
    let path: String
    /// Its `Content-Type`.
    let contentType: String
    /// Its bytes.
    let body: [UInt8]
    /// A strong `ETag` for it: the first 16 bytes of its SHA-256, in hex, quoted.
    let etag: String

    init(path: String, contentType: String, body: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
        let digest = SHA256.hash(data: body).prefix(16)
        etag = "\"" + digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined() + "\""
    }
}

/// The inspector page (`GET /inspector`) and the scripts and style sheet it loads
/// (`GET /inspector/<file>`): `docs/http-api.md`, "Inspector".
enum InspectorAssets: EmbeddedPage {
    /// The page's path.
    static let pagePath = "/inspector"

    /// Every file by its path.
    static let byPath: [String: InspectorAsset] = {
        let html = "text/html; charset=utf-8"
        let script = "text/javascript; charset=utf-8"
        let files: [InspectorAsset] = [
            InspectorAsset(path: pagePath, contentType: html, body: PackageResources.inspector_html),
            InspectorAsset(path: pagePath + "/inspector.css", contentType: "text/css; charset=utf-8", body: PackageResources.inspector_css),
            InspectorAsset(path: pagePath + "/main.js", contentType: script, body: PackageResources.main_js),
            InspectorAsset(path: pagePath + "/api.js", contentType: script, body: PackageResources.api_js),
            InspectorAsset(path: pagePath + "/jsondiff.js", contentType: script, body: PackageResources.jsondiff_js),
            InspectorAsset(path: pagePath + "/treemodel.js", contentType: script, body: PackageResources.treemodel_js),
            InspectorAsset(path: pagePath + "/treeview.js", contentType: script, body: PackageResources.treeview_js),
            InspectorAsset(path: pagePath + "/worker.js", contentType: script, body: PackageResources.worker_js),
            InspectorAsset(path: pagePath + "/replay.js", contentType: script, body: PackageResources.replay_js),
            InspectorAsset(path: pagePath + "/statepanel.js", contentType: script, body: PackageResources.statepanel_js),
            InspectorAsset(path: pagePath + "/actionlog.js", contentType: script, body: PackageResources.actionlog_js),
            InspectorAsset(path: pagePath + "/dispatch.js", contentType: script, body: PackageResources.dispatch_js),
            InspectorAsset(path: pagePath + "/viewmodels.js", contentType: script, body: PackageResources.viewmodels_js),
            InspectorAsset(path: pagePath + "/health.js", contentType: script, body: PackageResources.health_js),
            InspectorAsset(path: pagePath + "/storepicker.js", contentType: script, body: PackageResources.storepicker_js),
        ]
        return Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0) })
    }()

    /// The header fields of every file: revalidate before each use (a newer server may serve a
    /// newer page; an unchanged file costs a `304`), scripts only from this origin, requests only
    /// to it, no framing, no referrer.
    static let securityHeaders: [(String, String)] = [
        ("Cache-Control", "no-cache"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                + "worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
    ]
}
