extension OpenAPIDocument {
    /// What a page served from the binary is called in the document (the inspector, the thin client).
    struct PageRoutes {
        /// The page.
        let page: any EmbeddedPage.Type
        /// Its operations' name: `get<operation>` for the page, `get<operation>File` for a file.
        let operation: String
        /// The page's summary.
        let summary: String
        /// What the page is, in the summary of its files ("the inspector page").
        let name: String
        /// Whose the files are, in the `401` of a path that names none of them ("the inspector's").
        let owner: String
    }

    /// The two routes of `routes`: `GET` of the page (HTML) and of one of its files (a script or
    /// the style sheet), each revalidated with `ETag` and `If-None-Match`, open without a token.
    func paths(of routes: PageRoutes) -> [String: JSONValue] {
        let revalidate: JSONValue = [
            "ETag": ["schema": ["type": "string"]],
            "Cache-Control": ["schema": ["const": "no-cache"]],
        ]
        let conditional = header("If-None-Match", "The ETag of a copy the client has", ["type": "string"])
        let file = { (types: [String], description: String) -> JSONValue in
            ["description": .string(description), "headers": revalidate, "content": .object(Dictionary(uniqueKeysWithValues: types.map { ($0, ["schema": ["type": "string"]]) }))]
        }
        let notModified: JSONValue = ["description": "Not modified: the If-None-Match tag is current", "headers": revalidate]
        var fileResponses: [String: JSONValue] = ["200": file(["text/javascript", "text/css"], "The file"), "304": notModified, "404": problem("No such file")]
        if accessControl {
            // The files are open; any other path under the page is an ordinary route, behind the token.
            fileResponses["401"] = problem("Not one of \(routes.owner) files, and no valid token")
        }
        let fileParameter: JSONValue = [
            "name": "file", "in": "path", "required": true,
            "schema": ["type": "string", "enum": .array(routes.page.fileNames.map { .string($0) })],
        ]
        return [
            routes.page.pagePath: ["get": operation(
                "get\(routes.operation)", routes.summary,
                parameters: [conditional],
                responses: [
                    "200": file(["text/html"], "The page (its scripts and style sheet come from \(routes.page.filePathTemplate))"),
                    "304": notModified,
                ]
            )],
            routes.page.filePathTemplate: ["get": operation(
                "get\(routes.operation)File", "A script or the style sheet of \(routes.name)",
                parameters: [fileParameter, conditional],
                responses: .object(fileResponses)
            )],
        ]
    }
}
