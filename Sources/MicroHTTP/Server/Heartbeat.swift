/// Sends a comment line to every open stream at a fixed interval, on a thread of its own, so
/// proxies keep the streams open and clients that left are noticed at the next write, and cuts
/// off streams whose client read nothing during a whole interval while bytes waited.
final class Heartbeat: Sendable {
    /// An SSE comment line: ignored by clients, but it makes the connection write. One line,
    /// with no blank line after it: some clients (httpx-sse) turn a blank line after a comment
    /// into an empty event.
    static let comment: [UInt8] = Array(": ping\n".utf8)

    private let thread: PeriodicThread

    init(interval: Duration, streams: StreamRegistry) {
        thread = PeriodicThread(named: "sse-heartbeat", interval: interval) {
            for stream in streams.snapshot() {
                stream.cutOffIfStalled()
                _ = stream.enqueue(CollectionOfOne(Self.comment), onlyIfIdle: true)
            }
        }
    }

    /// Starts the thread; returns `false` if the system refused to create it.
    func start() -> Bool {
        thread.start()
    }

    /// Stops the thread and waits for it to exit (unless called from it).
    func stop() {
        thread.stop()
    }
}
