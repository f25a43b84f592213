extension OpenAPIDocument {
    /// The thin client's routes (`docs/navigation.md`): the page and its files, open without a
    /// token.
    var appPaths: [String: JSONValue] {
        let summary = "The thin web client of the example's screens: renders the navigation view model"
        return paths(of: PageRoutes(page: AppAssets.self, operation: "App", summary: summary, name: "the thin client", owner: "the client's"))
    }
}
