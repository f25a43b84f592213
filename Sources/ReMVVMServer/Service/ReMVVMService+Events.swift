import MicroHTTP

extension ReMVVMService {
    /// `GET /events`: server-sent events, the current state first, then one event per reduce; with
    /// `Last-Event-ID` (or `?lastEventId=`; the header wins), every version after it instead of
    /// the current state, or the current state marked `"reset": true` and `ReMVVM-Replay: reset`
    /// when that version cannot be served. With `?delta=json-patch`, the events after the first
    /// are `patch` events (`docs/http-api.md`, "Deltas"); another `delta` value is a `400`. On a
    /// replica, a `Last-Event-ID` the log holds but this replica has not applied yet waits for it
    /// (``ServedStore/whenResumable(after:_:)``).
    func getEvents(_ request: Request, in served: ServedStore<State>) -> Response {
        guard let format = EventFormat(deltaParameter: request.query["delta"]) else {
            return Problem.unknownDelta(request.query["delta"] ?? "").response
        }
        let lastEventId = Self.lastEventId(of: request)
        let isHead = request.method == .HEAD
        return served.whenResumable(after: lastEventId) { [hub = served.hub] in
            guard !isHead else {
                // The head alone: no subscriber, no replay, nothing counted as a stream.
                return Self.streamHead(isReset: hub.wouldReset(resumingAfter: lastEventId))
            }
            let (stream, isReset) = hub.subscribe(resumingAfter: lastEventId, format: format)
            var response = Self.streamHead(isReset: isReset)
            response.body = .stream(stream)
            return response
        }
    }

    /// The id a stream resumes after: the `Last-Event-ID` header, else the `lastEventId` query
    /// parameter; nil when neither is given. Every value of the one used counts: values that
    /// disagree (a broken client or proxy) give an id that names no version, so the stream
    /// starts with the reset instead of trusting whichever came first or last.
    static func lastEventId(of request: Request) -> String? {
        var values = request.headers.values(for: .lastEventID)
        if values.isEmpty {
            values = request.queryValues(named: "lastEventId")
        }
        guard let first = values.first else { return nil }
        let trimmed = values.map { VersionTags.withoutBlanksAround($0[...]) }
        return trimmed.allSatisfy({ $0 == trimmed[0] }) ? first : ""
    }

    /// The head of an event stream's `200` (`text/event-stream`, not cached, not buffered by
    /// proxies; `ReMVVM-Replay: reset` when it starts with a reset), with an empty body: what
    /// `HEAD` of a stream route answers, and `GET` with the stream as its body.
    static func streamHead(isReset: Bool) -> Response {
        var headers = HTTPHeaders([
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            ("X-Accel-Buffering", "no"),
        ])
        if isReset {
            headers.add(name: "ReMVVM-Replay", value: "reset")
        }
        return Response(status: 200, headers: headers, body: .bytes([]))
    }

    /// What the event publisher has done so far: versions, states encoded, patches computed
    /// (`EventStatistics`); as of its last broadcast. For tests and tools.
    public var eventStatistics: EventStatistics {
        root.hub.currentStatistics
    }
}
