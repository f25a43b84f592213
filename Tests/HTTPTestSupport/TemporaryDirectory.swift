import Foundation

/// A fresh, empty directory under the system's temporary directory, removed with everything in it
/// when the instance goes away (a test's data directory).
public final class TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory; `prefix` starts its name, to tell test leftovers apart.
    public init(prefix: String = "remvvm-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
