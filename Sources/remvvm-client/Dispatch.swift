import ArgumentParser
import Foundation
import ReMVVMClient

/// `dispatch '<json>'`: posts an action or a batch, exactly once (an Idempotency-Key, retried).
struct Dispatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Dispatch an action ({\"type\":…,\"payload\":…}) or a JSON array of them; prints {\"version\":N}.",
        discussion: "Retried with the same Idempotency-Key on network errors and 503, so it is applied once."
    )

    @OptionGroup var server: ServerOptions

    @Option(name: .customLong("if-match"), help: "Apply only at this version (its tag: 42, or 42-3f9a2c1b in memory).")
    var ifMatch: String?

    @Argument(help: "The action as JSON; - reads it from standard input.")
    var json: String

    func run() async throws {
        try await reportingErrors {
            let body = json == "-" ? [UInt8](FileHandle.standardInput.readDataToEndOfFile()) : Array(json.utf8)
            let answer = try await server.client().dispatch(json: body, ifMatch: ifMatch.map(VersionTag.init))
            switch answer {
            case .applied(let version): writeLine(Array("{\"version\":\(version)}".utf8))
            case .accepted: writeLine(Array("{\"accepted\":true}".utf8))
            }
        }
    }
}
