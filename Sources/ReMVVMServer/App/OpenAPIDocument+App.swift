extension OpenAPIDocument {
    /// The path template of the thin client's scripts and style sheet.
    static let appFilePath = AppAssets.pagePath + "/{file}"

    /// The thin client's routes (`docs/navigation.md`): the page and its files, open without a
    /// token.
    var appPaths: [String: JSONValue] {
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
            fileResponses["401"] = problem("Not one of the client's files, and no valid token")
        }
        let fileParameter: JSONValue = [
            "name": "file", "in": "path", "required": true,
            "schema": ["type": "string", "enum": .array(AppAssets.fileNames.map { .string($0) })],
        ]
        return [
            AppAssets.pagePath: ["get": operation(
                "getApp", "The thin web client of the example's screens: renders the navigation view model",
                parameters: [conditional],
                responses: ["200": file(["text/html"], "The page (its scripts and style sheet come from /app/{file})"), "304": notModified]
            )],
            Self.appFilePath: ["get": operation(
                "getAppFile", "A script or the style sheet of the thin client",
                parameters: [fileParameter, conditional],
                responses: .object(fileResponses)
            )],
        ]
    }
}
