import MicroHTTP

extension ReMVVMService {
    /// `GET /events`: server-sent events, the current state first, then one event per reduce.
    func getEvents() -> Response {
        Response(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", "text/event-stream; charset=utf-8"),
                ("Cache-Control", "no-cache"),
                ("X-Accel-Buffering", "no"),
            ]),
            body: .stream(hub.subscribe())
        )
    }
}
