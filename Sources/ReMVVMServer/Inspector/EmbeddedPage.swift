/// A page served from the binary with its files under its path (the inspector's, the thin
/// client's): `pagePath` is the HTML, `pagePath/<file>` its scripts and style sheet.
protocol EmbeddedPage {
    /// The page's path.
    static var pagePath: String { get }
    /// The page and every file, by path.
    static var byPath: [String: InspectorAsset] { get }
}

extension EmbeddedPage {
    /// The file names under the page's path, sorted (for the OpenAPI document).
    static var fileNames: [String] {
        byPath.keys.filter { $0 != pagePath }.map { String($0.dropFirst(pagePath.count + 1)) }.sorted()
    }

    /// Whether `path` is the page or one of its files (open without a token, see
    /// ``AccessGate/isOpen(path:)``).
    static func isAsset(path: String) -> Bool {
        path.hasPrefix(pagePath) && byPath[path] != nil
    }
}
