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
        if arguments.count == 2, arguments[1] == "--apply-only" {
            try applyOnly()
            return
        }
        guard arguments.count >= 2, let url = URL(string: arguments[1]) else {
            say("usage: client-bench URL [EVENTS] [STREAMS]")
            exit(2)
        }
        let events = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
        let streams = arguments.count > 3 ? Int(arguments[3]) ?? 50 : 50
        var actions = ActionNames()
        actions.register(Toggle.self, as: "toggle")
        let client = ReMVVMClient(baseURL: url, actions: actions, transport: URLSessionTransport(maximumConnectionsPerHost: streams + 2))

        let recorded = try await record(events, from: client)
        say("recorded \(events) versions: \(recorded.count) bytes in all, the first event (the whole state) included")

        try breakdown(recorded)
        let replay = ReMVVMClient(baseURL: url, transport: ReplayTransport(bytes: recorded))
        var rates: [Int] = []
        var last: StateEvent?
        for _ in 0..<11 {
            let start = ContinuousClock.now
            var firstDone = start
            var count = 0
            for try await event in replay.stateEvents() {
                count += 1
                if count == 1 { firstDone = .now }
                if count == events + 1 {
                    last = event  // not kept before: a state the app keeps is copied, not changed, by the next patch
                    break
                }
            }
            rates.append(Int(Double(count - 1) / (ContinuousClock.now - firstDone).seconds))
        }
        rates.sort()
        say("parse + apply (JSON Patch events, \(events) per round, 11 rounds): median \(rates[5]) events/s, range \(rates[0])-\(rates[10])")
        let (_, now) = try await client.stateJSON()
        say("final state equals GET /state byte for byte: \(last?.state.canonicalBytes == now.canonicalBytes)")

        let start = ContinuousClock.now
        var count = 0
        for try await _ in replay.states(as: TodoList.self) {
            count += 1
            if count == min(events + 1, 200) { break }
        }
        let seconds = (ContinuousClock.now - start).seconds
        say("parse + apply + decode (TodoList, 10,000 items): \(count) events in \(format(seconds)) s = \(Int(Double(count) / seconds)) events/s")

        try await memoryPerStream(streams, of: client)
    }

    /// Dispatches `count` toggles, one at a time, each once the stream brought the version before
    /// (faster, the server's publishing falls behind a 10,000-item state and cuts the stream), and
    /// records the delta stream's bytes.
    static func record(_ count: Int, from client: ReMVVMClient) async throws -> [UInt8] {
        let url = URL(string: client.baseURL.absoluteString + "/events?delta=json-patch") ?? client.baseURL
        let response = try await client.transport.stream(HTTPRequest(method: "GET", url: url, headers: [("Accept", "text/event-stream")]))
        var body = response.body.makeAsyncIterator()
        var bytes: [UInt8] = []
        var parser = ServerSentEventParser()
        var first: UInt64?
        var newest: UInt64?
        var dispatched = 0
        while first == nil || newest != first.map({ $0 + UInt64(count) }) {
            guard let piece = try await body.next() else { throw ClientError(.network, "the stream ended after \(bytes.count) bytes") }
            bytes += piece
            for event in parser.parse(piece) {
                newest = event.id.flatMap { VersionTag($0).version } ?? newest
                if first == nil { first = newest }
                if dispatched < count {
                    try await client.dispatch(Toggle(id: Int.random(in: 0..<10_000)))
                    dispatched += 1
                }
            }
        }
        return bytes
    }

    /// Where the time of the patch events goes: the event-stream parser, the JSON parser, reading
    /// the patches, applying them (each step over every patch event, timed alone).
    static func breakdown(_ recorded: [UInt8]) throws {
        var parser = ServerSentEventParser()
        var start = ContinuousClock.now
        let events = parser.parse(recorded)
        let sse = ContinuousClock.now - start
        guard let first = events.first, case .object(let data) = try JSON(parsing: first.data), var document = data["state"] else { return }
        let patchEvents = events.dropFirst()
        start = .now
        let parsed = try patchEvents.map { try JSON(parsing: $0.data) }
        let json = ContinuousClock.now - start
        start = .now
        let patches = try parsed.map { try [PatchOperation](json: $0["patch"] ?? .null) }
        let read = ContinuousClock.now - start
        start = .now
        for patch in patches { try document.apply(patch) }
        let applied = ContinuousClock.now - start
        let perEvent = { (duration: Duration) in format(duration.seconds * 1e6 / Double(max(patches.count, 1))) }
        say("per patch event: SSE parse (all \(events.count) events) \(format(sse.seconds * 1_000)) ms in all; JSON parse \(perEvent(json)) µs, read patch \(perEvent(read)) µs, apply \(perEvent(applied)) µs")
    }

    /// 1,000 one-item patches applied to a 10,000-item document, no server: the cost of `apply`.
    static func applyOnly() throws {
        var root = JSONObject()
        root["items"] = .array((0..<10_000).map { index in
            var item = JSONObject()
            item["done"] = .bool(false)
            item["id"] = .number(String(index))
            item["title"] = .string("Todo item number \(index)")
            return .object(item)
        })
        var document = JSON.object(root)
        root = JSONObject()
        let patches = (0..<1_000).map { index in
            [PatchOperation.replace(path: JSONPointer(tokens: ["items", String(index * 7 % 10_000), "done"]), value: .bool(true))]
        }
        let start = ContinuousClock.now
        for patch in patches { try document.apply(patch) }
        say("apply: \(format((ContinuousClock.now - start).seconds * 1e3)) µs per one-item patch on 10,000 items")
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
        say("\(count) open delta streams: resident memory +\((after - before) / 1_048_576) MiB = \((after - before) / count / 1024) KiB per stream")
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

/// Writes `line` to standard output at once (print's buffer is lost when a pipe's reader gives up).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
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
