import Dispatch
import Foundation
import MicroHTTP

/// Ends event streams when the token they were opened with expires (``AccessGate/streamValidUntil(for:)``).
///
/// The stream ends cleanly (what was sent is delivered); its client reconnects with its last id
/// and the expired token, gets `401`, and must come back with a fresh token (an `EventSource`
/// stops at the `401`; a new one with the new token and `?lastEventId=` resumes where it was).
enum StreamDeadline {
    /// Closes `stream` at `deadline` (seconds since 1970), or now when it has passed.
    static func close(_ stream: EventStream, at deadline: Double) {
        let seconds = deadline - Date().timeIntervalSince1970
        guard seconds > 0 else {
            stream.close()
            return
        }
        // Wall-clock time: `exp` is one.
        DispatchQueue.global().asyncAfter(wallDeadline: .now() + seconds) { [weak stream] in
            stream?.close()
        }
    }
}
