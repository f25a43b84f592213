public import Foundation

/// An executable product of this package (`remvvm-server`, `remvvm-client`), run by a test as a
/// child process.
public enum BuiltExecutable {
    /// The product `name` beside the test bundle: SwiftPM puts products in one folder, the first
    /// one up from the test binary that holds it; `.build/debug/name` when none does.
    public static func url(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/" + name)
    }

    /// A process of the product `name` with `arguments`, its standard output and its standard
    /// error each into a pipe of its own; not started yet (the caller may set more, then `run()`).
    public static func process(_ name: String, arguments: [String]) -> (process: Process, output: Pipe, error: Pipe) {
        let process = Process()
        process.executableURL = url(name)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        return (process, output, error)
    }
}
