extension OpenAPIDocument {
    /// What a page served from the binary is called in the document (the inspector, the thin client).
    struct PageRoutes {
        /// The page's path and its `operationId` and summary.
        let page: (path: String, id: String, summary: String)
        /// The 200's description of the page.
        let pageDescription: String
        /// The path template of its files, their names, and the files' `operationId` and summary.
        let files: (path: String, names: [String], id: String, summary: String)
        /// The 401 of a file path that names none of the files (with access control).
        let notAFile: String
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
            fileResponses["401"] = problem(routes.notAFile)
        }
        let fileParameter: JSONValue = [
            "name": "file", "in": "path", "required": true,
            "schema": ["type": "string", "enum": .array(routes.files.names.map { .string($0) })],
        ]
        return [
            routes.page.path: ["get": operation(
                routes.page.id, routes.page.summary,
                parameters: [conditional],
                responses: ["200": file(["text/html"], routes.pageDescription), "304": notModified]
            )],
            routes.files.path: ["get": operation(
                routes.files.id, routes.files.summary,
                parameters: [fileParameter, conditional],
                responses: .object(fileResponses)
            )],
        ]
    }
}
