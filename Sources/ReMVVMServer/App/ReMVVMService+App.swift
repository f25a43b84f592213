import MicroHTTP

extension ReMVVMService {
    /// The thin web client's routes (`docs/navigation.md`): `GET /app`, the page, and
    /// `GET /app/<file>`, its scripts and style sheet; open without a token, revalidated with
    /// their `ETag`s, as the inspector's files are.
    func addAppRoutes(to router: inout Router) {
        router.add(.GET, AppAssets.pagePath) { request, _ in
            Self.inspectorFile(request, path: AppAssets.pagePath, in: AppAssets.byPath)
        }
        router.add(.GET, AppAssets.pagePath + "/:file") { request, parameters in
            Self.inspectorFile(request, path: AppAssets.pagePath + "/" + (parameters["file"] ?? ""), in: AppAssets.byPath)
        }
    }
}
