import ConcurrencyKit

/// Sends a comment line to every open stream at a fixed interval, on a thread of its own, so
/// proxies keep the streams open and clients that left are noticed at the next write, and cuts
/// off streams whose client read nothing during a whole interval while bytes waited.
final class Heartbeat: Sendable {
    /// An SSE comment line: ignored by clients, but it makes the connection write. One line,
    /// with no blank line after it: some clients (httpx-sse) turn a blank line after a comment
    /// into an empty event.
    static let comment: [UInt8] = Array(": ping\n".utf8)

    private let worker = Worker(named: "sse-heartbeat")
    private let interval: Duration
    private let streams: StreamRegistry

    init(interval: Duration, streams: StreamRegistry) {
        self.interval = interval
        self.streams = streams
    }

    /// Starts the thread; throws if the system refused to create it.
    func start() throws(WorkerError) {
        try worker.startRepeating(every: interval) { [streams] in
            for stream in streams.snapshot() {
                stream.cutOffIfStalled()
                _ = stream.enqueue(CollectionOfOne(Self.comment), onlyIfIdle: true)
            }
        }
    }

    /// Stops the thread and waits for it to exit (unless called from it); throws when it has not
    /// within `timeout`.
    func stop(timeout: Duration = .seconds(10)) throws(WorkerError) {
        try worker.stop(timeout: timeout)
    }
}
