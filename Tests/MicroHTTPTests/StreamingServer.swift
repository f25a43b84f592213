import HTTPTestSupport
import MicroHTTP

/// A server whose `GET /events` opens an ``EventStream`` and hands it to the test.
///
/// Each stream's termination reason is posted to ``terminations``; the stream itself to
/// ``streams`` once the responder returns it (it may not be attached yet at that point).
final class StreamingServer: Sendable {
    let base: TestServer
    let streams = Mailbox<EventStream>()
    let terminations = Mailbox<EventStream.Termination>()

    var server: HTTPServer { base.server }
    var port: Int { base.port }

    /// - Parameters:
    ///   - writes: how events reach the sockets (the configuration's `directStreamWrites`).
    ///   - maxPendingBytes: each stream's backlog limit.
    ///   - initialEvents: events sent before the stream is returned (queued until attached).
    init(
        writes: StreamWrites = .direct,
        maxPendingBytes: Int = 1 << 20,
        initialEvents: [[UInt8]] = [],
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws {
        let streams = streams
        let terminations = terminations
        var router = Router()
        router.add(.GET, "/events") { _, _ in
            let stream = EventStream(maxPendingBytes: maxPendingBytes)
            stream.onTermination { reason in terminations.post(reason) }
            for event in initialEvents {
                stream.send(event)
            }
            streams.post(stream)
            return Response(
                status: 200,
                headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
                body: .stream(stream)
            )
        }
        router.add(.GET, "/plain") { _, _ in .ok("plain") }
        base = try TestServer(router: router) { configuration in
            configuration.directStreamWrites = writes.directStreamWrites
            configure(&configuration)
        }
    }

    /// Opens a subscriber and returns it with its server-side stream.
    func subscribe(receiveBufferSize: Int? = nil) throws -> (SSEClient, EventStream) {
        let client = try SSEClient(port: port, path: "/events", receiveBufferSize: receiveBufferSize)
        guard let stream = streams.next(timeout: .seconds(5)) else {
            throw TestHTTPError(code: .timeout, message: "The responder never produced a stream")
        }
        return (client, stream)
    }
}

/// One SSE event as bytes.
func sseEvent(id: Int, data: String, event: String = "state") -> [UInt8] {
    Array("id: \(id)\nevent: \(event)\ndata: \(data)\n\n".utf8)
}
