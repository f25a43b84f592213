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
    static let pageLiteral: StaticString = "/inspector"

    /// Every file by its path.
    static let byPath = files(page: PackageResources.inspector_html, styleSheet: ("inspector.css", PackageResources.inspector_css), scripts: [
        "main.js": PackageResources.main_js, "api.js": PackageResources.api_js, "jsondiff.js": PackageResources.jsondiff_js,
        "treemodel.js": PackageResources.treemodel_js, "treeview.js": PackageResources.treeview_js, "worker.js": PackageResources.worker_js,
        "replay.js": PackageResources.replay_js, "statepanel.js": PackageResources.statepanel_js, "actionlog.js": PackageResources.actionlog_js,
        "dispatch.js": PackageResources.dispatch_js, "viewmodels.js": PackageResources.viewmodels_js, "health.js": PackageResources.health_js,
        "storepicker.js": PackageResources.storepicker_js,
    ])

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
