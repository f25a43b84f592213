/// The events of one event stream of the server, across as many connections as it takes: what an
/// `EventSource` does, for the client's sequences.
///
/// - Reconnects when the connection fails or the server ends the stream (a restart, a shutdown, a
///   subscriber cut off for lagging), after the server's `retry:` delay, doubling while attempts
///   fail, up to the client's ``RetryPolicy/maximumDelay``; `502`, `503` and `504` count as failed
///   attempts too.
/// - Sends the id of the last event it handed out as `Last-Event-ID`, so the server resumes after
///   it: no version is skipped or repeated.
/// - Stops with a ``ClientError`` for answers that no retry changes (`400`, `401`, `403`, `404`, or
///   a `200` that is not `text/event-stream`).
struct ResumingEventSource {
    private let client: ReMVVMClient
    private let path: String
    private let query: [(name: String, value: String)]

    /// The id of the last event handed out, sent as `Last-Event-ID` on the next connection.
    private(set) var lastEventID: String?
    private var parser = ServerSentEventParser()
    private var body: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator?
    private var ready: [ServerSentEvent] = []
    private var readyIndex = 0
    /// The reconnect delay the server asked for last (`retry:`), 1 s until it says.
    private var reconnectDelay: Duration = .seconds(1)
    /// Connection attempts since the last one that got a stream; 0 before the first connection.
    private var failedAttempts = 0
    private var hasConnected = false

    /// A source of `path` (with `query`) of `client`'s store, resuming after `lastEventID` if given.
    init(client: ReMVVMClient, path: String, query: [(name: String, value: String)], lastEventID: String? = nil) {
        self.client = client
        self.path = path
        self.query = query
        self.lastEventID = lastEventID
    }

    /// The next event, connecting or reconnecting as needed; nil only when the task is cancelled.
    mutating func next() async throws -> ServerSentEvent? {
        while true {
            if readyIndex < ready.count {
                let event = ready[readyIndex]
                readyIndex += 1
                if let id = event.id { lastEventID = id }
                return event
            }
            if body == nil {
                guard try await connectRetrying() else { return nil }
                continue
            }
            do {
                if let piece = try await body?.next() {
                    ready = parser.parse(piece)
                    readyIndex = 0
                    if let retry = parser.retry { reconnectDelay = retry }
                } else {
                    body = nil  // the server ended the stream: reconnect after its delay
                }
            } catch {
                if Task.isCancelled { return nil }
                body = nil
            }
        }
    }

    /// Connects, waiting before each attempt after the first as the type's comment says; false
    /// when the task was cancelled meanwhile.
    private mutating func connectRetrying() async throws -> Bool {
        while true {
            if hasConnected || failedAttempts > 0 {
                do {
                    try await Task.sleep(for: delayBeforeAttempt())
                } catch {
                    return false
                }
            }
            hasConnected = true
            do {
                if try await connect() {
                    failedAttempts = 0
                    return true
                }
            } catch let error as ClientError {
                throw error
            } catch {
                // a network failure: try again
            }
            if Task.isCancelled { return false }
            failedAttempts += 1
        }
    }

    /// The wait before the next attempt: the server's `retry:` after a stream ended, doubled for
    /// each attempt that failed since, up to the client's maximum delay (never below `retry:`).
    private func delayBeforeAttempt() -> Duration {
        var delay = reconnectDelay
        for _ in 0..<min(failedAttempts, 16) where delay < client.retry.maximumDelay {
            delay *= 2
        }
        return min(delay, max(client.retry.maximumDelay, reconnectDelay))
    }

    /// One connection attempt: true with a stream open, false for a failure worth retrying; throws
    /// a ``ClientError`` for an answer no retry changes.
    private mutating func connect() async throws -> Bool {
        var headers: [(name: String, value: String)] = [("Cache-Control", "no-cache")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        var request = client.request("GET", client.url(path, query: query), accept: "text/event-stream", headers: headers)
        request.idleTimeout = client.streamIdleTimeout
        let response = try await client.transport.stream(request)
        switch response.head.status {
        case 200:
            guard response.head[header: "Content-Type"]?.lowercased().hasPrefix("text/event-stream") == true else {
                throw ClientError(.invalidResponse, "GET \(path) answered 200 with \(response.head[header: "Content-Type"] ?? "no Content-Type"), not text/event-stream")
            }
            body = response.body.makeAsyncIterator()
            parser = ServerSentEventParser()
            return true
        case 408, 429, 502, 503, 504:
            return false
        default:
            var bytes: [UInt8] = []
            for try await piece in response.body { bytes += piece }
            throw ReMVVMClient.error(for: HTTPResponse(head: response.head, body: bytes), of: "GET \(path)")
        }
    }
}
