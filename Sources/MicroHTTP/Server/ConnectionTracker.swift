import ConcurrencyKit

internal import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One open connection, as the ``ConnectionTracker`` knows it. Retained by libmicrohttpd's
/// per-connection `socket_context` from the connection's opening to its closing.
final class ConnectionRecord: Sendable {
    /// The connection's socket, used only to cut off a slow head (``ConnectionTracker``).
    let socket: Int32
    /// When the request head being received must be complete (monotonic nanoseconds), or 0
    /// while a request is being served.
    let headDeadline = Atomic<UInt64>(0)
    /// When the request body being received must be complete (monotonic nanoseconds); 0 when no
    /// body is awaited; ``ConnectionTracker/bodyAwaited`` while one is and the deadline thread has
    /// not yet set its deadline (the request path reads no clock for it).
    let bodyDeadline = Atomic<UInt64>(0)
    /// The string libmicrohttpd percent-decoded last on this connection (its address) and its
    /// decoded length: the request's path is decoded last, and may hold a NUL (`%00`) that
    /// its C string would end at (``percentDecode``).
    private let lastDecoded = Atomic<UInt>(0)
    private let lastDecodedLength = Atomic<Int>(0)
    /// What the responder remembers between the connection's requests (``Request/connectionMemo``).
    let memo = ConnectionMemo()
    /// The long header values of the connection's recent requests, for the next ones.
    let repeatedFieldValues = RepeatedFieldValues()
    /// The header fields of the request being received: read with its head on the access
    /// handler's first call (``RequestHead``), taken by its answer on a later one. Touched only
    /// by the connection's worker thread, as ``RepeatedFieldValues`` is (libmicrohttpd serves a
    /// connection on one thread, suspended or not): a lock here would cost more than it guards.
    nonisolated(unsafe) private var pendingHeaders: HTTPHeaders?

    init(socket: Int32) {
        self.socket = socket
    }

    /// Keeps the fields of the request whose head was just read, until ``takeHeaders()``.
    func keepHeaders(_ headers: HTTPHeaders) {
        pendingHeaders = headers
    }

    /// The fields kept for the request being answered (nil if none are), no longer kept.
    func takeHeaders() -> HTTPHeaders? {
        pendingHeaders.take()
    }

    /// Notes that `text` was decoded to `length` bytes (on the connection's worker thread).
    func decoded(_ text: UnsafePointer<CChar>, length: Int) {
        lastDecoded.store(UInt(bitPattern: text), ordering: .relaxed)
        lastDecodedLength.store(length, ordering: .relaxed)
    }

    /// The decoded length of `text` if it was the string decoded last, else nil.
    func decodedLength(of text: UnsafePointer<CChar>) -> Int? {
        guard lastDecoded.load(ordering: .relaxed) == UInt(bitPattern: text) else { return nil }
        return lastDecodedLength.load(ordering: .relaxed)
    }
}

/// Counts a server's open connections and cuts off those that take too long to send a request
/// head or body (slowloris, slow bodies): libmicrohttpd's idle timeout restarts at every byte, so
/// a client sending one byte every few seconds would otherwise hold its connection forever.
///
/// A head must be complete within `headTimeout` of the connection opening, or of the previous
/// answer on it; a body within about `bodyTimeout` of its head (the deadline thread sets the
/// deadline when it first sees the body awaited: up to one check interval later). One thread
/// checks the deadlines about once a second and shuts an expired connection's socket down, which
/// makes libmicrohttpd close it. That is safe from another thread because libmicrohttpd reports a
/// connection closed (``closed(_:)``, under the same lock) before it closes the socket, so a
/// descriptor number is never touched after reuse.
final class ConnectionTracker: Sendable {
    /// ``ConnectionRecord/bodyDeadline`` while a body is awaited and its deadline not yet set.
    static let bodyAwaited: UInt64 = 1

    /// The open connections' records, and how many were cut off: apart from the tracker so that
    /// the deadline thread holds them, not the tracker. A `[weak self]` there gave the tracker a
    /// side table, and every retain and release of it on the request path took the slow way.
    private final class OpenRecords: Sendable {
        let table = Lock([ObjectIdentifier: ConnectionRecord]())
        let cutCount = Atomic<Int>(0)
        let slowBodyCutCount = Atomic<Int>(0)

        /// Shuts down every connection whose head or body is overdue at `now`; gives an awaited
        /// body without a deadline yet one `bodyTimeout` from now (0: none).
        func cutOffOverdue(now: UInt64, bodyTimeout: UInt64) {
            table.withLock { records in
                for record in records.values {
                    let deadline = record.headDeadline.load(ordering: .relaxed)
                    if deadline != 0, deadline <= now {
                        record.headDeadline.store(0, ordering: .relaxed)
                        cutOff(record, counting: cutCount)
                        continue
                    }
                    guard bodyTimeout > 0 else { continue }
                    let bodyDeadline = record.bodyDeadline.load(ordering: .relaxed)
                    if bodyDeadline == ConnectionTracker.bodyAwaited {
                        // Only if still awaited: the body may have arrived meanwhile.
                        _ = record.bodyDeadline.compareExchange(
                            expected: bodyDeadline, desired: now + bodyTimeout, ordering: .relaxed
                        )
                    } else if bodyDeadline != 0, bodyDeadline <= now,
                        record.bodyDeadline.compareExchange(expected: bodyDeadline, desired: 0, ordering: .relaxed).exchanged {
                        cutOff(record, counting: slowBodyCutCount)
                    }
                }
            }
        }

        private func cutOff(_ record: ConnectionRecord, counting count: borrowing Atomic<Int>) {
            // Counted first: whoever sees the connection close sees the count too.
            count.wrappingAdd(1, ordering: .sequentiallyConsistent)
            do {
                try Posix.shutdownBoth(record.socket)
            } catch {
                // ENOTCONN: the client left already; libmicrohttpd closes the connection.
            }
        }
    }

    private let records = OpenRecords()
    private let openCount = Atomic<Int>(0)
    /// 0 turns the head deadline off.
    private let headTimeoutNanoseconds: UInt64
    /// 0 turns the body deadline off.
    private let bodyTimeoutNanoseconds: UInt64
    /// Checks the deadlines four times per (shorter) timeout, at most once a second: a slow head
    /// lives at most about 1.25 times its timeout, a slow body 1.5 times. Idle without timeouts.
    private let checker = Worker(named: "header-timeout")
    /// Told about every connection opened or closed.
    private let changes: ChangeSignal

    init(headTimeout: Duration, bodyTimeout: Duration, changes: ChangeSignal) {
        self.changes = changes
        headTimeoutNanoseconds = Self.nanoseconds(headTimeout)
        bodyTimeoutNanoseconds = Self.nanoseconds(bodyTimeout)
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// Connections open right now.
    var count: Int {
        openCount.load(ordering: .relaxed)
    }

    /// Connections cut off so far because their request head took too long.
    var cutOffCount: Int {
        records.cutCount.load(ordering: .relaxed)
    }

    /// Connections cut off so far because their request body took too long.
    var slowBodyCutOffCount: Int {
        records.slowBodyCutCount.load(ordering: .relaxed)
    }

    /// A connection opened; returns its record (to be kept in libmicrohttpd's socket context).
    func opened(socket: Int32) -> ConnectionRecord {
        let record = ConnectionRecord(socket: socket)
        record.headDeadline.store(deadline(), ordering: .relaxed)
        records.table.withLock { $0[ObjectIdentifier(record)] = record }
        openCount.wrappingAdd(1, ordering: .relaxed)
        changes.changed()
        return record
    }

    /// A connection closed (called before libmicrohttpd closes its socket).
    func closed(_ record: ConnectionRecord) {
        _ = records.table.withLock { $0.removeValue(forKey: ObjectIdentifier(record)) }
        openCount.wrappingSubtract(1, ordering: .relaxed)
        changes.changed()
    }

    /// A request head arrived whole: no deadline while the request is served.
    func headReceived(_ record: ConnectionRecord) {
        record.headDeadline.store(0, ordering: .relaxed)
    }

    /// The head declared a body: it has a deadline until ``bodyReceived(_:)``.
    func bodyAwaited(_ record: ConnectionRecord) {
        record.bodyDeadline.store(Self.bodyAwaited, ordering: .relaxed)
    }

    /// The request's body (if any) is complete: no deadline while the request is served.
    func bodyReceived(_ record: ConnectionRecord) {
        // Read first: a request without a body (most) writes nothing, so the line stays shared.
        if record.bodyDeadline.load(ordering: .relaxed) != 0 {
            record.bodyDeadline.store(0, ordering: .relaxed)
        }
    }

    /// A request was answered; the next head on the connection has its own deadline.
    func requestFinished(_ record: ConnectionRecord) {
        // A request refused before its body was read through, or aborted, leaves none behind.
        bodyReceived(record)
        record.headDeadline.store(deadline(), ordering: .relaxed)
    }

    /// Starts the deadline thread (if there is a deadline); throws if the system refused it.
    func start() throws(WorkerError) {
        let shorter = [headTimeoutNanoseconds, bodyTimeoutNanoseconds].filter { $0 > 0 }.min()
        guard let shorter else { return }
        let interval = Duration.nanoseconds(Int64(min(1_000_000_000, max(10_000_000, shorter / 4))))
        let records = self.records
        let bodyTimeout = bodyTimeoutNanoseconds
        try checker.startRepeating(every: interval) { records.cutOffOverdue(now: Self.monotonicNow(), bodyTimeout: bodyTimeout) }
    }

    /// Stops the deadline thread and waits for it; throws when it has not stopped within `timeout`.
    func stop(timeout: Duration = .seconds(10)) throws(WorkerError) {
        try checker.stop(timeout: timeout)
    }

    private func deadline() -> UInt64 {
        headTimeoutNanoseconds == 0 ? 0 : Self.monotonicNow() + headTimeoutNanoseconds
    }

    /// ``ConcurrencyKit/MonotonicClock``, as the deadlines' unsigned nanoseconds.
    private static func monotonicNow() -> UInt64 {
        UInt64(MonotonicClock.nanoseconds())
    }
}
