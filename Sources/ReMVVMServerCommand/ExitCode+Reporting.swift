import ArgumentParser
import Foundation

extension ExitCode {
    /// `status`, after writing `Error: <error>` to standard error: how a subcommand ends on an
    /// error it explains itself (no usage text).
    static func reporting(_ error: any Error, as status: ExitCode = .failure) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
        return status
    }
}
