import Foundation

/// A resources folder of `Sources/ReMVVMServer` as this checkout holds it: the files the binary
/// must embed and serve.
struct ResourceFolder {
    /// The folder.
    let url: URL
    /// Its files' names, hidden files left out.
    let files: [String]

    /// `Sources/ReMVVMServer/<area>/Resources` (`App`, `Inspector`).
    init(area: String) throws {
        url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ReMVVMServer/\(area)/Resources")
        files = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { !$0.hasPrefix(".") }
    }

    /// The path `file` is served at: the page itself at `pagePath`, every other file below it.
    func path(of file: String, page: String, at pagePath: String) -> String {
        file == page ? pagePath : pagePath + "/" + file
    }

    /// The bytes of `file` on disk.
    func bytes(of file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url.appendingPathComponent(file)))
    }
}
