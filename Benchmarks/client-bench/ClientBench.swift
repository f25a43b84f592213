import Foundation
import JSONPatch
import ReMVVM
import ReMVVMClient

/// What one `ReMVVMClient` costs on a large state (large-state-server: 10,000 todo items, one
/// toggled per action):
///
/// 1. records a `GET /events?delta=json-patch` stream of `EVENTS` versions from the live server;
/// 2. replays the recorded bytes through `stateEvents()` (an in-memory transport, 16 KiB pieces):
///    events/s parsed and applied (the SSE parser, the event's JSON, the patch on the state);
/// 3. the same with every state decoded into Swift types (`states(as:)`);
/// 4. opens `STREAMS` delta streams to the server and reports the resident memory per stream.
///
///     client-bench URL [EVENTS] [STREAMS]
@main
enum ClientBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
            print("usage: client-bench URL [EVENTS] [STREAMS]")
            exit(2)
        }
        let events = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
        let streams = arguments.count > 3 ? Int(arguments[3]) ?? 50 : 50
        var actions = ActionNames()
        actions.register(Toggle.self, as: "toggle")
        let client = ReMVVMClient(baseURL: url, actions: actions)

        let recorded = try await record(events, from: client)
        print("recorded \(events) versions: \(recorded.count) bytes (\(recorded.count / max(events, 1)) per event after the first)")

        let replay = ReMVVMClient(baseURL: url, transport: ReplayTransport(bytes: recorded))
        var start = ContinuousClock.now
        var count = 0
        var last: StateEvent?
        for try await event in replay.stateEvents() {
            count += 1
            last = event
            if count == events + 1 { break }
        }
        var seconds = (ContinuousClock.now - start).seconds
        print("parse + apply (JSON): \(count) events in \(format(seconds)) s = \(Int(Double(count) / seconds)) events/s")
        let (_, now) = try await client.stateJSON()
        print("final state equals GET /state byte for byte: \(last?.state.canonicalBytes == now.canonicalBytes)")

        start = .now
        count = 0
        for try await _ in replay.states(as: TodoList.self) {
            count += 1
            if count == min(events + 1, 200) { break }
        }
        seconds = (ContinuousClock.now - start).seconds
        print("parse + apply + decode (TodoList, 10,000 items): \(count) events in \(format(seconds)) s = \(Int(Double(count) / seconds)) events/s")

        try await memoryPerStream(streams, of: client)
    }

    /// Dispatches `count` toggles (in batches of 100) and records the delta stream until it has
    /// their versions.
    static func record(_ count: Int, from client: ReMVVMClient) async throws -> [UInt8] {
        let (first, _) = try await client.stateJSON()
        let target = (first.version ?? 0) + UInt64(count)
        var request = HTTPRequest(method: "GET", url: client.baseURL.appendingPathComponent("events"), headers: [("Accept", "text/event-stream")])
        request.url = URL(string: client.baseURL.absoluteString + "/events?delta=json-patch") ?? request.url
        let response = try await client.transport.stream(request)
        let sender = Task {
            var sent = 0
            while sent < count {
                let batch = (0..<min(100, count - sent)).map { _ in Toggle(id: Int.random(in: 0..<10_000)) as any StoreAction & Encodable }
                try await client.dispatch(batch: batch)
                sent += batch.count
            }
        }
        var bytes: [UInt8] = []
        var parser = ServerSentEventParser()
        reading: for try await piece in response.body {
            bytes += piece
            for event in parser.parse(piece) where event.id.flatMap({ VersionTag($0).version }) == target {
                break reading
            }
        }
        try await sender.value
        return bytes
    }

    /// Opens `count` delta streams, waits for each one's first state, and prints the growth of the
    /// resident memory per stream.
    static func memoryPerStream(_ count: Int, of client: ReMVVMClient) async throws {
        let before = residentBytes()
        var tasks: [Task<Void, any Error>] = []
        let ready = AsyncStream<Void>.makeStream()
        for _ in 0..<count {
            tasks.append(Task {
                for try await _ in client.stateEvents() {
                    ready.continuation.yield()
                }
            })
        }
        var opened = 0
        for await _ in ready.stream {
            opened += 1
            if opened == count { break }
        }
        let after = residentBytes()
        print("\(count) open delta streams: resident memory +\((after - before) / 1_048_576) MiB = \((after - before) / count / 1024) KiB per stream")
        for task in tasks { task.cancel() }
    }

    /// The process's resident set size (Linux: /proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }
}

/// The large-state-server's action: flips `done` on one item.
struct Toggle: StoreAction, Codable {
    var id: Int
}

/// The large-state-server's state, as a client decodes it.
struct TodoList: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        var id: Int
        var title: String
        var done: Bool
    }

    var items: [Item]
}

/// Serves recorded event-stream bytes as one endless `200 text/event-stream` answer, in 16 KiB
/// pieces: the client's cost without the network's.
struct ReplayTransport: HTTPTransport {
    let bytes: [UInt8]

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw URLError(.unsupportedURL)
    }

    func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let bytes = self.bytes
        let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
            var offset = 0
            while offset < bytes.count {
                continuation.yield(Array(bytes[offset..<min(offset + 16_384, bytes.count)]))
                offset += 16_384
            }
        }
        return HTTPStreamingResponse(head: HTTPResponseHead(status: 200, headers: ["Content-Type": "text/event-stream"]), body: body)
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
