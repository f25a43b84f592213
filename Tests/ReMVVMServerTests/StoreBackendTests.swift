import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import PostgresJournal
import PostgresTestSupport
import ReMVVM
@testable import ReMVVMServer
import SQLiteJournal
import Testing

/// The three storages of a served store — memory, a journal, a replica of a shared log — through
/// the one protocol the routes use (``StoreBackend``): the same dispatches give the same answers,
/// the same action log and the same health, whichever backend keeps the store.
@Suite(.serialized) struct StoreBackendTests {
    private static let environment = StoreEnvironment<AppState>(
        codec: ActionJournalCodec(registry: ExampleApp.actions),
        viewModels: ExampleApp.viewModels,
        configuration: ServiceConfiguration(),
        metrics: nil,
        requestConnections: RequestConnections(),
        logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        replayRingBudget: SharedBudget(total: ServiceConfiguration().replayRingBytes),
        actionLogBudget: SharedBudget(total: ServiceConfiguration().actionLogMemoryLimit),
        inMemoryAnswers: InMemoryAnswers(limit: ServiceConfiguration().idempotencyMemoryLimit)
    )

    @Test func aStoreInMemoryAnswersThroughTheProtocol() throws {
        let store = try Store.example()
        try exercise(MemoryBackend(store: store, codec: Self.environment.codec, actionLogBudget: Self.environment.actionLogBudget))
    }

    @Test func aStoreInAJournalAnswersThroughTheProtocolAndIsRestoredFromIt() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-backend")
        try exercise(try Self.journalBackend(in: directory))
        let restarted = try Self.journalBackend(in: directory)
        let served = ServedStore(id: .default, backend: restarted, versionTags: .plain, environment: Self.environment)
        try served.start()
        defer { served.stop() }
        #expect(served.publisher.snapshot.version == 3)
        #expect(try restarted.actionLog(after: 0, limit: 10).records.map(\.version) == [1, 2, 3])
    }

    @Test func aReplicaOfASharedLogAnswersThroughTheProtocol() throws {
        let postgres = try PostgresServer()
        let directory = try TemporaryDirectory(prefix: "remvvm-backend-replica")
        let replication = ReplicaConfiguration(
            log: try PostgresSharedLog(conninfo: postgres.conninfo, patience: .seconds(10)),
            snapshots: try SQLiteJournalStorage(directory: directory.path, sync: .off),
            name: "r0"
        )
        let backend = ReplicaBackend(
            store: try Store.example(),
            replication: replication,
            codec: Self.environment.codec,
            configuration: Self.environment.configuration,
            logger: Self.environment.logger
        )
        try exercise(backend)
        #expect(backend.gauges.map(\.label) == [
            "remvvm_replica_lag_versions", "remvvm_replica_following", "remvvm_replica_registration_renewed_timestamp_seconds",
        ])
    }

    /// A stream rebuilt from the journal counts as open from its subscription, before the hub's
    /// lane holds it: what keeps its store from being unloaded under it (http-api.md, "Stores":
    /// a store with open streams stays). Here the replay waits for room: nothing reads the stream.
    @Test func aStreamRebuiltFromTheJournalKeepsItsStoreOpenUntilItEnds() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-backend-replaying")
        var configuration = ServiceConfiguration()
        configuration.subscriberBacklogBytes = 1_024
        let base = Self.environment
        let environment = StoreEnvironment<AppState>(
            codec: base.codec, viewModels: base.viewModels, configuration: configuration, metrics: nil,
            requestConnections: base.requestConnections, logger: base.logger, replayRingBudget: base.replayRingBudget,
            actionLogBudget: base.actionLogBudget, inMemoryAnswers: base.inMemoryAnswers
        )
        let backend = JournalBackend(
            store: try Store.example(), storage: try SQLiteJournalStorage(directory: directory.path, sync: .off),
            codec: base.codec, configuration: configuration, requestConnections: base.requestConnections, logger: base.logger
        )
        let served = ServedStore(id: .default, backend: backend, versionTags: .plain, environment: environment)
        try served.start()
        defer { served.stop() }
        for _ in 0..<200 { _ = try Self.settled(post(served)) }
        #expect(!served.hub.hasOpenStreams && !served.viewModelHub.hasOpenStreams)
        // No stream ever followed this durable store: its hub keeps no versions, so the journal
        // rebuilds the 199 after version 1, more than the 1 KiB backlog takes at once.
        let (stream, isReset) = served.hub.subscribe(resumingAfter: "1")
        #expect(!isReset)
        #expect(served.hub.subscriberCount == 0, "rebuilt from the journal, not at the lane yet")
        #expect(served.hub.hasOpenStreams)
        stream.close()
        #expect(!served.hub.hasOpenStreams)
    }

    /// A state whose JSON cannot be written (JSON has no NaN): its store cannot be served.
    struct Unencodable: StoreState, Codable {
        var value = Double.nan
    }

    struct Touch: StoreAction, Codable {}

    enum TouchReducer: Reducer {
        static func reduce(state: Unencodable, with action: Touch) -> Unencodable { state }
    }

    /// A store whose start fails after its backend started (here: its events cannot encode the
    /// state) leaves nothing of the backend running: the journal is closed (its write-ahead log
    /// checkpointed and removed), or every retry of the load would leave one more open.
    @Test func aStoreThatFailsToStartAfterItsBackendStoppedItsBackend() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-backend-unencodable")
        var actions = ActionRegistry()
        actions.register(Touch.self, as: "touch")
        let environment = StoreEnvironment<Unencodable>(
            codec: ActionJournalCodec(registry: actions), viewModels: ViewModelRegistry<Unencodable>(),
            configuration: ServiceConfiguration(), metrics: nil, requestConnections: RequestConnections(),
            logger: Self.environment.logger, replayRingBudget: Self.environment.replayRingBudget,
            actionLogBudget: Self.environment.actionLogBudget, inMemoryAnswers: Self.environment.inMemoryAnswers
        )
        let backend = JournalBackend(
            store: try Store(state: Unencodable(), reducer: TouchReducer.self),
            storage: try SQLiteJournalStorage(directory: directory.path, sync: .off),
            codec: environment.codec, configuration: environment.configuration,
            requestConnections: environment.requestConnections, logger: environment.logger
        )
        let served = ServedStore(id: .default, backend: backend, versionTags: .plain, environment: environment)
        #expect(throws: (any Error).self) { try served.start() }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains { $0.hasSuffix("-wal") }, "the journal is still open: \(files)")
    }

    /// Two increases, an `If-Match` that no longer holds, a retried `Idempotency-Key`, the
    /// action log and health, all through `backend` as a served store's routes reach it.
    private func exercise(_ backend: any StoreBackend<AppState>) throws {
        let served = ServedStore(id: .default, backend: backend, versionTags: .plain, environment: Self.environment)
        try served.start()
        defer { served.stop() }
        #expect(waitUntil(timeout: .seconds(20)) { backend.health == .ok || backend.health.replica != nil && backend.health.status == .ok })
        #expect(backend.health.status == .ok)
        #expect(served.publisher.snapshot.version == 0)
        #expect(try Self.settled(post(served)).body.bytes == Array(#"{"version":1}"#.utf8))
        #expect(try Self.settled(post(served)).body.bytes == Array(#"{"version":2}"#.utf8))
        let stale = try Self.settled(post(served, headers: [("If-Match", #""1""#)]))
        #expect(stale.status == 412)
        #expect(stale.headers["ETag"] == #""2""#)
        let keyed = try Self.settled(post(served, headers: [("Idempotency-Key", "k-1")]))
        let retried = try Self.settled(post(served, headers: [("Idempotency-Key", "k-1")]))
        #expect(keyed.body.bytes == Array(#"{"version":3}"#.utf8))
        #expect(retried.body.bytes == keyed.body.bytes)
        #expect(retried.headers["Idempotent-Replayed"] == "true")
        #expect(waitUntil(timeout: .seconds(10)) { served.publisher.snapshot.version == 3 })
        let page = try backend.actionLog(after: 1, limit: 10)
        #expect(page.records.map(\.version) == [2, 3])
        #expect(page.records.map(\.type) == ["increase", "increase"])
        #expect(page.earliest == 1)
        let resumed = backend.afterApplying(2) { Response(status: 204) }
        #expect(try Self.settled(resumed).status == 204, "a version this store has is served at once")
    }

    /// A fresh store kept in the SQLite journal of `directory`.
    private static func journalBackend(in directory: TemporaryDirectory) throws -> JournalBackend<AppState> {
        JournalBackend(
            store: try Store.example(),
            storage: try SQLiteJournalStorage(directory: directory.path, sync: .off),
            codec: environment.codec,
            configuration: environment.configuration,
            requestConnections: environment.requestConnections,
            logger: environment.logger
        )
    }

    /// `POST /actions {"type":"increase"}` through the served store's dispatch path.
    private func post(_ served: ServedStore<AppState>, headers: [(String, String)] = []) -> Response {
        let body = Array(#"{"type":"increase"}"#.utf8)
        let request = Request(
            method: .POST, path: "/actions", query: [:], queryItems: [],
            headers: HTTPHeaders([("Content-Type", "application/json")] + headers), body: body
        )
        return served.dispatchRequest(request, fingerprintPath: "/actions") { _ in .dispatch([Increase()]) }
    }

    /// `response`, or what it completes with when it waits for a commit.
    private static func settled(_ response: Response) throws -> Response {
        guard case .pending(let pending) = response.body else { return response }
        let done = Mailbox<Response>()
        pending.whenCompleted { done.post($0) }
        return try #require(done.next(timeout: .seconds(20)))
    }
}

extension Response.Body {
    /// The bytes of a complete body (empty for a stream or a pending one).
    fileprivate var bytes: [UInt8] {
        if case .bytes(let bytes) = self { return bytes }
        return []
    }
}
