import Synchronization

/// How the bytes of event streams reached their sockets since a server started.
public struct EventStreamWriteStatistics: Sendable, Equatable {
    /// Sends written straight to the socket (one system call, no libmicrohttpd round trip)
    /// while the connection waited for data.
    public var direct: Int
    /// Direct writes that the socket took only in part (its send buffer was full); the rest
    /// followed once the socket was writable again.
    public var split: Int
    /// Times libmicrohttpd took queued bytes from a stream: the first bytes of each stream,
    /// and whatever queued while a client was behind.
    public var throughLibmicrohttpd: Int
}

/// The server-wide counters behind ``EventStreamWriteStatistics``.
final class StreamWriteCounters: Sendable {
    private let direct = Atomic<Int>(0)
    private let split = Atomic<Int>(0)
    private let throughLibmicrohttpd = Atomic<Int>(0)

    func countDirect() { direct.wrappingAdd(1, ordering: .relaxed) }
    func countSplit() { split.wrappingAdd(1, ordering: .relaxed) }
    func countThroughLibmicrohttpd() { throughLibmicrohttpd.wrappingAdd(1, ordering: .relaxed) }

    var snapshot: EventStreamWriteStatistics {
        EventStreamWriteStatistics(
            direct: direct.load(ordering: .relaxed),
            split: split.load(ordering: .relaxed),
            throughLibmicrohttpd: throughLibmicrohttpd.load(ordering: .relaxed)
        )
    }
}
