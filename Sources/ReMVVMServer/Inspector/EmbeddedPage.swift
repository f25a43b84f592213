/// A page served from the binary with its files under its path (the inspector's, the thin
/// client's): `pagePath` is the HTML, `pagePath/<file>` its scripts and style sheet.
protocol EmbeddedPage {
    /// The page's path, as a literal: the access gate compares every path starting with its
    /// first letter with it (``isAsset(path:bytes:)``).
    static var pageLiteral: StaticString { get }
    /// The page and every file, by path.
    static var byPath: [String: InspectorAsset] { get }
}

extension EmbeddedPage {
    /// The page's path.
    static var pagePath: String { "\(pageLiteral)" }

    /// The path template of the page's files in the OpenAPI document, e.g. `/inspector/{file}`.
    static var filePathTemplate: String { pagePath + "/{file}" }

    /// The page's files by path: `page` (HTML) at ``pagePath``, and its style sheet and scripts
    /// under it by name.
    static func files(page: [UInt8], styleSheet: (name: String, body: [UInt8]), scripts: KeyValuePairs<String, [UInt8]>) -> [String: InspectorAsset] {
        let script = "text/javascript; charset=utf-8"
        let files = [
            InspectorAsset(path: pagePath, contentType: "text/html; charset=utf-8", body: page),
            InspectorAsset(path: pagePath + "/" + styleSheet.name, contentType: "text/css; charset=utf-8", body: styleSheet.body),
        ] + scripts.map { InspectorAsset(path: pagePath + "/" + $0.key, contentType: script, body: $0.value) }
        return Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0) })
    }

    /// The file names under the page's path, sorted (for the OpenAPI document).
    static var fileNames: [String] {
        byPath.keys.filter { $0 != pagePath }.map { String($0.dropFirst(pagePath.count + 1)) }.sorted()
    }

    /// Whether `path` is the page or one of its files (open without a token, see
    /// ``AccessGate/isOpen(path:)``).
    static func isAsset(path: String) -> Bool {
        var text = path
        return text.withUTF8 { isAsset(path: path, bytes: $0) }
    }

    /// ``isAsset(path:)`` for a path whose UTF-8 bytes the caller holds: most paths differ from
    /// the page's in their first bytes, found without a lookup.
    static func isAsset(path: String, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes[...].starts(with: pageLiteral) && byPath[path] != nil
    }
}
