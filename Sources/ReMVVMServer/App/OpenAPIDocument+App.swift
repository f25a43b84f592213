extension OpenAPIDocument {
    /// The path template of the thin client's scripts and style sheet.
    static let appFilePath = AppAssets.pagePath + "/{file}"

    /// The thin client's routes (`docs/navigation.md`): the page and its files, open without a
    /// token.
    var appPaths: [String: JSONValue] {
        paths(of: PageRoutes(
            page: (AppAssets.pagePath, "getApp", "The thin web client of the example's screens: renders the navigation view model"),
            pageDescription: "The page (its scripts and style sheet come from /app/{file})",
            files: (Self.appFilePath, AppAssets.fileNames, "getAppFile", "A script or the style sheet of the thin client"),
            notAFile: "Not one of the client's files, and no valid token"
        ))
    }
}
