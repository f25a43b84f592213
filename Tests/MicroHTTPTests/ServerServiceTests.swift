import HTTPTestSupport
import Logging
import MicroHTTP
import ServiceLifecycle
import Testing

/// ``HTTPServer`` as a swift-service-lifecycle `Service`: started by the group, stopped by a
/// graceful shutdown or by cancellation. Each test runs on a thread of its own, so that tests
/// blocking the cooperative pool cannot hold up the group's tasks.
@Suite struct ServerServiceTests {
    private static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    private func makeServer(beforeEndingStreams: @escaping @Sendable () -> Void = {}) -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        return HTTPServer(
            configuration: configuration,
            responder: ClosureResponder { _ in .ok("hi") },
            logger: Self.quiet,
            beforeEndingStreams: beforeEndingStreams
        )
    }

    @Test func aGracefulShutdownOfTheGroupStopsTheServerAndRunReturns() async throws {
        try await onOwnThread {
            let steps = Mailbox<String>()
            let server = makeServer { steps.post("before ending streams") }
            let group = ServiceGroup(services: [server], logger: Self.quiet)
            async let run: Void = group.run()
            #expect(await server.waitUntilListening(timeout: .seconds(5)), "the group started the server")
            let response = try TestHTTPClient(port: server.port).send(path: "/")
            #expect(response.status == 200)
            await group.triggerGracefulShutdown()
            try await run
            #expect(steps.snapshot == ["before ending streams"], "the shutdown step ran once")
            #expect(throws: (any Error).self, "nothing listens any more") {
                try TestHTTPClient(port: server.port, timeout: .seconds(2)).send(path: "/")
            }
        }
    }

    @Test func cancellingTheGroupStopsTheServerToo() async throws {
        await onOwnThread {
            let server = makeServer()
            let group = ServiceGroup(services: [server], logger: Self.quiet)
            await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                #expect(await server.waitUntilListening(timeout: .seconds(5)))
                tasks.cancelAll()
                _ = try? await tasks.next()
            }
            #expect(throws: (any Error).self) {
                try TestHTTPClient(port: server.port, timeout: .seconds(2)).send(path: "/")
            }
        }
    }

    @Test func aServerStartedByItsOwnerIsNotStartedAgainAndAStoppedOneReturnsAtOnce() async throws {
        try await onOwnThread {
            let server = makeServer()
            try server.start()
            let port = server.port
            let group = ServiceGroup(services: [server], logger: Self.quiet)
            async let run: Void = group.run()
            #expect(try TestHTTPClient(port: port).send(path: "/").status == 200)
            await group.triggerGracefulShutdown()
            try await run
            #expect(try server.startIfIdle() == false, "stopped servers stay stopped")
            try await server.run()  // returns at once
        }
    }
}
