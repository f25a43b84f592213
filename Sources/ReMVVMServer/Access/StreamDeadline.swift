import ConcurrencyKit
import Foundation
import Logging
import MicroHTTP

/// Ends event streams when the token they were opened with expires (``AccessGate/streamValidUntil(for:)``).
///
/// The stream ends cleanly (what was sent is delivered); its client reconnects with its last id
/// and the expired token, gets `401`, and must come back with a fresh token (an `EventSource`
/// stops at the `401`; a new one with the new token and `?lastEventId=` resumes where it was).
///
/// One registry for the process: a stream is forgotten as soon as it ends, so memory follows the
/// streams open, not the tokens' lifetimes (a timer per stream stayed until its token's `exp`: a
/// day's tokens and frequent reconnects grew it without bound). One sweep a second, on a
/// ``Worker`` of its own (`stream-deadline`) that runs only while any stream is registered, closes
/// the streams whose deadline passed.
enum StreamDeadline {
    /// Closes `stream` at `deadline` (seconds since 1970), or now when it has passed.
    static func close(_ stream: EventStream, at deadline: Double) {
        guard deadline > Date().timeIntervalSince1970 else {
            stream.close()
            return
        }
        registry.add(stream, deadline: deadline)
    }

    /// Closes the stream `response` carries at `deadline`, also when it carries it later (a
    /// pending answer that completes with a stream); nothing for other answers.
    static func close(streamOf response: Response, at deadline: Double) {
        switch response.body {
        case .stream(let stream):
            close(stream, at: deadline)
        case .pending(let pending):
            pending.whenCompleted { completed in close(streamOf: completed, at: deadline) }
        default:
            break
        }
    }

    private static let registry = Registry()

    private final class Registry: Sendable {
        private struct Entry {
            let deadline: Double
            weak var stream: EventStream?
        }

        private struct State {
            var entries: [ObjectIdentifier: Entry] = [:]
            var sweeping = false
        }

        private let state = Lock(State())

        func add(_ stream: EventStream, deadline: Double) {
            let id = ObjectIdentifier(stream)
            let startSweeping = state.withLock { state -> Bool in
                state.entries[id] = Entry(deadline: deadline, stream: stream)
                defer { state.sweeping = true }
                return !state.sweeping
            }
            stream.onTermination { [weak self] _ in
                self?.state.withLock { _ = $0.entries.removeValue(forKey: id) }
            }
            if startSweeping { startSweeper() }
        }

        /// Starts the thread that sweeps once a second until no stream is registered. A thread
        /// refused by the system leaves the streams to end at their clients' leisure: logged.
        private func startSweeper() {
            let sweeper = Worker(named: "stream-deadline")
            do {
                try sweeper.start { [self] worker in
                    while !worker.pause(for: .seconds(1)), sweep() {}
                }
            } catch {
                state.withLock { $0.sweeping = false }
                Self.logger.error("token expiry of event streams: \(error); streams stay open past their token's expiry until one can start")
            }
        }

        /// Closes the streams whose deadline passed; true while any is still registered.
        private func sweep() -> Bool {
            let now = Date().timeIntervalSince1970
            let (due, more) = state.withLock { state -> ([EventStream], Bool) in
                var due: [EventStream] = []
                for (id, entry) in state.entries where entry.deadline <= now || entry.stream == nil {
                    if let stream = entry.stream { due.append(stream) }
                    state.entries[id] = nil
                }
                state.sweeping = !state.entries.isEmpty
                return (due, state.sweeping)
            }
            for stream in due { stream.close() }
            return more
        }

        private static let logger = Logger(label: "remvvm.access")
    }
}
