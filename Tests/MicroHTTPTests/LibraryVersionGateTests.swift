import HTTPTestSupport
import Logging
@testable import MicroHTTP
import Testing

/// Direct stream writes only on a libmicrohttpd version they were verified against.
@Suite struct LibraryVersionGateTests {
    /// A server on a faked libmicrohttpd version, with an `/events` route that opens a stream.
    private func makeServer(
        version: String,
        directStreamWrites: Bool = true,
        log: CapturedLog
    ) -> (HTTPServer, Mailbox<EventStream>) {
        let streams = Mailbox<EventStream>()
        var router = Router()
        router.add(.GET, "/events") { _, _ in
            let stream = EventStream(maxPendingBytes: 1 << 20)
            streams.post(stream)
            return Response(status: 200, headers: ["Content-Type": "text/event-stream"], body: .stream(stream))
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.directStreamWrites = directStreamWrites
        let server = HTTPServer(
            configuration: configuration, responder: router, logger: log.logger(), libraryVersion: version
        )
        return (server, streams)
    }

    @Test func theLibraryThisSuiteRunsOnIsVerifiedSoDirectWritesAreExercised() {
        #expect(
            LibmicrohttpdVersion.allowsDirectWrites(LibmicrohttpdVersion.loaded),
            "libmicrohttpd \(LibmicrohttpdVersion.loaded) is loaded: read docs/event-delivery.md against its source before adding it to LibmicrohttpdVersion.verifiedForDirectWrites"
        )
    }

    @Test func anUnverifiedVersionLogsAWarningAndStreamsThroughLibmicrohttpd() throws {
        let log = CapturedLog()
        let (server, streams) = makeServer(version: "1.0.1", log: log)
        try server.start()
        defer { server.shutdown() }
        #expect(!server.usesDirectStreamWrites)
        let warnings = log.messages.snapshot.filter { $0.hasPrefix("warning ") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("libmicrohttpd 1.0.1 is not a version direct stream writes were verified against") == true)

        let client = try SSEClient(port: server.port, path: "/events")
        let stream = try #require(streams.next(timeout: .seconds(5)))
        for id in 1...20 {
            #expect(stream.send(sseEvent(id: id, data: "event \(id)")))
        }
        for id in 1...20 {
            #expect(try client.nextEvent(timeout: .seconds(5))?.id == "\(id)")
        }
        let writes = server.streamWriteStatistics
        #expect(writes.direct == 0 && writes.split == 0)
        #expect(writes.throughLibmicrohttpd > 0)
    }

    @Test func aVerifiedVersionUsesDirectWritesUnlessTheyAreTurnedOff() throws {
        let on = CapturedLog()
        let (verified, _) = makeServer(version: "0.9.75", log: on)
        #expect(verified.usesDirectStreamWrites)
        let off = CapturedLog()
        let (turnedOff, _) = makeServer(version: "0.9.75", directStreamWrites: false, log: off)
        #expect(!turnedOff.usesDirectStreamWrites)
        let (unverifiedAndOff, _) = makeServer(version: "1.0.1", directStreamWrites: false, log: off)
        try unverifiedAndOff.start()
        defer { unverifiedAndOff.shutdown() }
        #expect(!off.messages.snapshot.contains { $0.hasPrefix("warning ") }, "nothing to warn about when they are off")
    }
}
