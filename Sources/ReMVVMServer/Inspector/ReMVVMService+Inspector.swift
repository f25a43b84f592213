import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// The inspector's routes (`docs/http-api.md`, "Inspector"): the page and its files, open
    /// without a token; `GET /stats`, the health figures the page charts (`read`); and
    /// `GET /access`, what the caller's token allows (any valid token).
    func addInspectorRoutes(to router: inout Router) {
        router.add(.GET, InspectorAssets.pagePath) { request, _ in
            Self.inspectorFile(request, path: InspectorAssets.pagePath)
        }
        router.add(.GET, InspectorAssets.pagePath + "/:file") { request, parameters in
            Self.inspectorFile(request, path: InspectorAssets.pagePath + "/" + (parameters["file"] ?? ""))
        }
        router.add(.GET, "/stats") { [self, root] _, _ in getStats(in: root) }
        router.add(.GET, AccessGate.accessPath) { [self] request, _ in getAccess(request) }
    }

    /// One file of the page (or of another page's `assets`, the thin client's): `200` with its
    /// bytes, or `304` when `If-None-Match` names its tag.
    static func inspectorFile(_ request: Request, path: String, in assets: [String: InspectorAsset] = InspectorAssets.byPath) -> Response {
        guard let asset = assets[path] else {
            return Problem.notFound(path: request.path).response
        }
        var headers = HTTPHeaders([("ETag", asset.etag)] + InspectorAssets.securityHeaders)
        if let condition = request.headers.list(.ifNoneMatch), matches(asset.etag, condition) {
            return Response(status: 304, headers: headers)
        }
        headers.add(name: "Content-Type", value: asset.contentType)
        return Response(status: 200, headers: headers, body: .bytes(asset.body))
    }
}
