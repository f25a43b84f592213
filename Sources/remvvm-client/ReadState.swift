import ArgumentParser
import ReMVVMClient

/// `state`: prints the state now, as `watch` prints each version.
struct ReadState: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the state now: {\"version\":N,\"state\":…} on one line."
    )

    @OptionGroup var server: ServerOptions

    func run() async throws {
        try await reportingErrors {
            let (tag, state) = try await server.client().stateJSON()
            writeLine(Array("{\"version\":\(tag.version.map(String.init) ?? "null"),\"state\":".utf8) + state.canonicalBytes + [UInt8(ascii: "}")])
        }
    }
}
