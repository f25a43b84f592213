import ConcurrencyKit
import ExampleApp
import ReMVVM
import Foundation
import JSONPatch
import ReMVVMClient
import Testing

/// `?delta=json-patch`: patches applied locally give the server's states, byte for byte.
@Suite struct DeltaStreamTests {
    @Test func patchedStatesAreTheServersStatesByteForByte() async throws {
        let server = try TestServer()
        let received = ByteTally()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, transport: TeeTransport(tally: received), retry: quickRetries)
        try await client.dispatch(Login(firstName: "Ada", lastName: "Lovelace"))  // now a patch is smaller than the state
        let withDeltas = Collector(client.stateEvents(deltas: true))
        let withoutDeltas = Collector(client.stateEvents(deltas: false))
        try await withDeltas.wait(for: 1)
        try await withoutDeltas.wait(for: 1)
        for index in 1...30 {
            try await client.dispatch(index % 3 == 0 ? Decrease() as StoreActionCodable : Increase())
        }
        let patched = try await withDeltas.wait { $0.last?.version == 31 }
        let whole = try await withoutDeltas.wait { $0.last?.version == 31 }
        #expect(received.text.contains("event: patch"), "the server sent patches")
        #expect(patched.map(\.version) == Array(1...31))
        #expect(patched.map(\.state.canonicalBytes) == whole.map(\.state.canonicalBytes))
        let (_, now) = try await client.stateJSON()
        #expect(patched.last?.state.canonicalBytes == now.canonicalBytes)
    }
}

/// An action the tests can put in a heterogeneous list.
typealias StoreActionCodable = any StoreAction & Encodable

/// Everything the event streams received, as text.
final class ByteTally: Sendable {
    private let bytes = Lock<[UInt8]>([])

    func add(_ piece: [UInt8]) {
        bytes.withLock { $0 += piece }
    }

    var text: String {
        String(decoding: bytes.withLock { $0 }, as: UTF8.self)
    }
}

/// ``URLSessionTransport`` that also copies the bytes of every stream into a ``ByteTally``.
struct TeeTransport: HTTPTransport {
    let base = URLSessionTransport()
    let tally: ByteTally

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await base.send(request)
    }

    func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let response = try await base.stream(request)
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let forward = Task { [tally] in
            do {
                for try await piece in response.body {
                    tally.add(piece)
                    continuation.yield(piece)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forward.cancel() }
        return HTTPStreamingResponse(head: response.head, body: body)
    }
}
