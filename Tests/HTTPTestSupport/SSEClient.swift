/// A server-sent-events subscriber over a raw socket: sends `GET path`, reads the response
/// head, then parses events incrementally from the chunked body.
///
/// To simulate a stalled subscriber, pass a small `receiveBufferSize` and stop calling
/// ``nextEvent(timeout:)``: the client then never reads, and the server's writes back up.
/// Not thread-safe: use one client per thread.
public final class SSEClient {
    /// The response status.
    public let status: Int
    /// The response header fields.
    public let headers: TestHTTPHeaders
    /// Comment lines received so far (heartbeats are `: ping`).
    public private(set) var comments: [String] = []
    /// The reconnect delay of the last `retry:` field, in milliseconds, and the number of events
    /// dispatched before it arrived.
    public private(set) var retry: (milliseconds: Int, eventsBefore: Int)?
    /// Events dispatched so far.
    public private(set) var eventCount = 0
    /// Blank lines that ended no event (nothing since the previous blank line but comments):
    /// some clients (httpx-sse) dispatch an empty event for each.
    public private(set) var emptyBlocks = 0
    /// HTTP chunks received so far: events sent together arrive in one chunk.
    public private(set) var chunksReceived = 0
    /// How the stream ended, once it has; `nil` while it is open.
    public private(set) var streamEnd: SSEStreamEnd?

    private let socket: TestSocket
    private let isChunked: Bool
    /// Body bytes of the current chunk still to be read from the socket.
    private var chunkRemaining = 0
    /// Decoded body bytes not yet split into lines.
    private var pending: [UInt8] = []
    /// How many bytes at the start of `pending` are known to hold no newline.
    private var scannedWithoutNewline = 0
    private var current = SSEEvent(data: "")
    private var hasDataField = false
    private var hasFields = false

    /// Connects, sends the request and reads the response head within `timeout`.
    public init(
        host: String = "127.0.0.1",
        port: Int,
        path: String,
        headers: [(String, String)] = [("Accept", "text/event-stream")],
        receiveBufferSize: Int? = nil,
        timeout: Duration = .seconds(10)
    ) throws(TestHTTPError) {
        socket = try TestSocket(host: host, port: port, receiveBufferSize: receiveBufferSize)
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers {
            request += "\(name): \(value)\r\n"
        }
        try socket.write(Array((request + "\r\n").utf8))
        let head = try ResponseHead.read(from: socket, deadline: .now + timeout)
        status = head.status
        self.headers = head.headers
        isChunked = head.isChunked
    }

    /// The next event, skipping (and recording) comments; `nil` once the stream has ended.
    /// Throws ``TestHTTPErrorCode/timeout`` if no complete event arrives in time.
    public func nextEvent(timeout: Duration) throws(TestHTTPError) -> SSEEvent? {
        let deadline = ContinuousClock.now + timeout
        while let item = try nextItem(deadline: deadline) {
            if case .event(let event) = item {
                return event
            }
        }
        return nil
    }

    /// The next event or comment; `nil` once the stream has ended.
    public func nextItem(timeout: Duration) throws(TestHTTPError) -> SSEItem? {
        try nextItem(deadline: .now + timeout)
    }

    /// Reads and discards events until the stream ends; returns how it ended.
    public func waitForEnd(timeout: Duration) throws(TestHTTPError) -> SSEStreamEnd {
        let deadline = ContinuousClock.now + timeout
        while try nextItem(deadline: deadline) != nil {}
        return streamEnd ?? .aborted
    }

    /// Closes the connection, as a browser tab would.
    public func close() {
        socket.close()
    }

    private func nextItem(deadline: ContinuousClock.Instant) throws(TestHTTPError) -> SSEItem? {
        while true {
            while let line = takeLine() {
                if let item = consume(line) {
                    return item
                }
            }
            guard streamEnd == nil, try readBody(deadline: deadline) else {
                return nil
            }
        }
    }

    /// Applies one line to the event being built; returns an item when one is complete.
    private func consume(_ line: String) -> SSEItem? {
        if line.isEmpty {
            if !hasFields { emptyBlocks += 1 }
            defer {
                current = SSEEvent(data: "")
                hasDataField = false
                hasFields = false
            }
            if hasFields { eventCount += 1 }
            return hasFields ? .event(current) : nil
        }
        if line.hasPrefix(":") {
            let text = String(line.dropFirst()).trimmingSpaces
            comments.append(text)
            return .comment(text)
        }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.first == " " {
                value = value.dropFirst()
            }
        } else {
            field = Substring(line)
            value = ""
        }
        hasFields = true
        switch field {
        case "id": current.id = String(value)
        case "retry": retry = Int(value).map { ($0, eventCount) }
        case "event": current.event = String(value)
        case "data":
            current.data = hasDataField ? current.data + "\n" + value : String(value)
            hasDataField = true
        default: break
        }
        return nil
    }

    private func takeLine() -> String? {
        // Resume the search where the last one stopped: a long line arrives in many reads.
        guard let newline = pending[scannedWithoutNewline...].firstIndex(of: UInt8(ascii: "\n")) else {
            scannedWithoutNewline = pending.count
            return nil
        }
        scannedWithoutNewline = 0
        var end = newline
        if end > 0, pending[end - 1] == UInt8(ascii: "\r") {
            end -= 1
        }
        let line = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeSubrange(...newline)
        return line
    }

    /// Moves more body bytes into `pending`; `false` when the stream has ended.
    private func readBody(deadline: ContinuousClock.Instant) throws(TestHTTPError) -> Bool {
        guard isChunked else {
            if socket.buffered == 0 {
                guard try socket.fill(deadline: deadline) else {
                    streamEnd = .aborted
                    return false
                }
            }
            pending += try socket.read(count: socket.buffered, deadline: deadline)
            return true
        }
        do {
            if chunkRemaining == 0 {
                guard let size = try ResponseHead.readChunkSize(from: socket, deadline: deadline) else {
                    streamEnd = .aborted
                    return false
                }
                if size == 0 {
                    try ResponseHead.readChunkEnd(from: socket, last: true, deadline: deadline)
                    streamEnd = .clean
                    return false
                }
                chunksReceived += 1
                chunkRemaining = size
            }
            if socket.buffered == 0 {
                guard try socket.fill(deadline: deadline) else {
                    streamEnd = .aborted
                    return false
                }
            }
            let take = min(chunkRemaining, socket.buffered)
            pending += try socket.read(count: take, deadline: deadline)
            chunkRemaining -= take
            if chunkRemaining == 0 {
                try ResponseHead.readChunkEnd(from: socket, last: false, deadline: deadline)
            }
            return true
        } catch where error.code == .connectionClosed {
            streamEnd = .aborted
            return false
        }
    }
}
