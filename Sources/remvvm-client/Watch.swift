import ArgumentParser
import JSONPatch
import ReMVVMClient

/// `watch`: one JSON line per version, across reconnections and server restarts.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every version as it happens: {\"version\":N,\"state\":…} per line (or the view model's).",
        discussion: """
            Keeps watching across disconnects and server restarts: it resumes after the last version \
            printed, so no version is missed or printed twice. When the server cannot resume (an \
            in-memory server restarted), the line carries "reset":true. Stops with Ctrl-C.
            """
    )

    @OptionGroup var server: ServerOptions

    @Option(name: .customLong("view-model"), help: "Watch this view model instead of the state: {\"version\":N,\"viewModel\":…|null}.")
    var viewModel: String?

    @Option(help: "The view model's key (with --view-model).")
    var key: String?

    @Flag(name: .customLong("no-deltas"), help: "Ask for whole states instead of JSON Patch deltas.")
    var noDeltas = false

    func validate() throws {
        if key != nil && viewModel == nil {
            throw ValidationError("--key needs --view-model")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let client = try server.client()
            if let viewModel {
                for try await event in client.viewModelEvents(viewModel, key: key) {
                    writeLine(line(version: event.version, isReset: event.isReset, member: "viewModel", value: event.viewModel))
                }
            } else {
                for try await event in client.stateEvents(deltas: !noDeltas) {
                    writeLine(line(version: event.version, isReset: event.isReset, member: "state", value: event.state))
                }
            }
        }
    }

    /// `{"version":N,["reset":true,]"<member>":<value or null>}`.
    private func line(version: UInt64, isReset: Bool, member: String, value: JSON?) -> [UInt8] {
        var bytes = Array("{\"version\":\(version),".utf8)
        if isReset { bytes += Array("\"reset\":true,".utf8) }
        bytes += Array("\"\(member)\":".utf8)
        bytes += (value ?? .null).canonicalBytes
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
