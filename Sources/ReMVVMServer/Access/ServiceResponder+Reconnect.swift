import MicroHTTP

extension ServiceResponder {
    /// What an `EventSource` gets instead of a `503` (shutting down, or at the connection limit)
    /// on an event stream: an `EventSource` treats any status but 200 as final and never
    /// reconnects, so the page would stay without events until reloaded. It gets a `200`
    /// event stream holding only a comment that says why and `retry:` set to the `503`'s
    /// `Retry-After`, which ends at once (the connection closes): it reconnects after that
    /// delay, with the `Last-Event-ID` it had. Only for a `GET` whose `Accept` names
    /// `text/event-stream`, as an `EventSource`'s does; other clients get the `503`.
    ///
    /// No blank line follows `retry:`. By the WHATWG event-stream rules a `retry:` line sets
    /// the reconnection time as soon as it is read, while a blank line dispatches the event
    /// gathered so far and the end of the stream discards an event not yet dispatched: with the
    /// blank line, parsers that dispatch an event with no data (httpx-sse does, when it carries
    /// `retry`) showed an empty `message` event; without it, nothing is dispatched and the
    /// reconnection time is set all the same.
    static func reconnectLater(
        for failure: RequestFailure, method: HTTPMethod, path: String, headers: HTTPHeaders
    ) -> Response? {
        guard failure.status == 503, let seconds = failure.retryAfterSeconds, method == .GET,
              EventStreamPaths.contains(path),
              headers.list(.accept)?.lowercased().contains("text/event-stream") == true
        else { return nil }
        var response = Response(
            status: 200,
            body: .bytes(Array(": \(failure.message)\nretry: \(seconds * 1000)\n".utf8))
        )
        response.headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        response.headers.add(name: "Cache-Control", value: "no-cache")
        return response
    }
}
