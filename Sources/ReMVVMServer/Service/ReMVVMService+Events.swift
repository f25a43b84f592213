import MicroHTTP

extension ReMVVMService {
    /// `GET /events`: server-sent events, the current state first, then one event per reduce; with
    /// `Last-Event-ID` (or `?lastEventId=`; the header wins), every version after it instead of
    /// the current state, or the current state marked `"reset": true` and `ReMVVM-Replay: reset`
    /// when that version cannot be served.
    func getEvents(_ request: Request) -> Response {
        let lastEventId = request.headers["Last-Event-ID"] ?? request.query["lastEventId"]
        let (stream, isReset) = hub.subscribe(resumingAfter: lastEventId)
        var headers = HTTPHeaders([
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            ("X-Accel-Buffering", "no"),
        ])
        if isReset {
            headers.add(name: "ReMVVM-Replay", value: "reset")
        }
        return Response(status: 200, headers: headers, body: .stream(stream))
    }
}
