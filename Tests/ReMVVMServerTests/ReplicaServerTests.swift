import ConcurrencyKit
import Dispatch
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
@testable import PostgresJournal
import PostgresTestSupport
import ReMVVM
@testable import ReMVVMServer
import SQLiteJournal
import Testing

/// Several replicas of one store on a shared PostgreSQL log (issue 14, `docs/replicas.md`),
/// over real sockets against a real PostgreSQL 15: writers and subscribers on every replica,
/// byte-identical states and events, read-your-writes, If-Match and Idempotency-Key across
/// replicas, a PostgreSQL restart and a replica restart mid-load.
@Suite(.serialized) struct ReplicaServerTests {
    /// One replica: a server on a shared log, its snapshots in a directory of its own.
    final class Replica: Sendable {
        let server: LiveServer
        let directory: String

        init(
            conninfo: String, directory: String, name: String, snapshotEvery: UInt64 = 10_000, connectLater: Bool = false,
            journalRetention: JournalRetention = 1_000_000, replicaExpiry: Duration? = ReplicaConfiguration.defaultExpiry,
            replicaRenewal: Duration? = nil,
            middleware: [any AnyMiddleware] = ExampleApp.middleware(services: Services()),
            logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        ) throws {
            self.directory = directory
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let log = connectLater
                ? PostgresSharedLog(connectingLater: conninfo)
                : try PostgresSharedLog(conninfo: conninfo, patience: .seconds(10))
            let snapshots = try SQLiteJournalStorage(directory: directory, sync: .off)
            server = try LiveServer(
                middleware: middleware,
                replication: ReplicaConfiguration(log: log, snapshots: snapshots, name: name, expiry: replicaExpiry, renewal: replicaRenewal),
                snapshotEvery: snapshotEvery,
                journalRetention: journalRetention,
                logger: logger
            )
        }

        var port: Int { server.port }

        /// The version `/healthz` reports, when it says ok.
        func readyVersion() -> UInt64? {
            guard let response = try? server.get("/healthz"), response.status == 200,
                  let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            else { return nil }
            return (json["version"] as? NSNumber)?.uint64Value
        }
    }

    /// A throwaway PostgreSQL and `count` replicas on it.
    final class Cluster: Sendable {
        /// The server, used by one thread at a time (a test's controller stops and starts it).
        private let postgres: Lock<PostgresServer>
        let conninfo: String
        let root: TemporaryDirectory
        let replicas: Lock<[Replica]>

        init(
            count: Int, snapshotEvery: UInt64 = 10_000, journalRetention: JournalRetention = 1_000_000,
            replicaExpiry: Duration? = ReplicaConfiguration.defaultExpiry, replicaRenewal: Duration? = nil,
            middleware: [any AnyMiddleware] = ExampleApp.middleware(services: Services())
        ) throws {
            let postgres = try PostgresServer()
            conninfo = postgres.conninfo
            self.postgres = Lock(postgres)
            root = try TemporaryDirectory(prefix: "remvvm-replicas")
            var replicas: [Replica] = []
            for index in 0..<count {
                replicas.append(try Replica(
                    conninfo: conninfo, directory: root.path + "/r\(index)", name: "r\(index)", snapshotEvery: snapshotEvery,
                    journalRetention: journalRetention, replicaExpiry: replicaExpiry, replicaRenewal: replicaRenewal, middleware: middleware
                ))
            }
            self.replicas = Lock(replicas)
        }

        /// Stops PostgreSQL (fast shutdown).
        func stopPostgres() { postgres.withLock { $0.stop() } }

        /// Starts PostgreSQL again on the same cluster and waits until it accepts connections.
        func startPostgres() throws { try postgres.withLock { try $0.start() } }

        subscript(index: Int) -> Replica { replicas.withLock { $0[index] } }

        /// Waits until every replica says ok at version `head`.
        func converge(at head: UInt64, timeout: Duration = .seconds(30)) -> Bool {
            waitUntil(timeout: timeout) {
                replicas.withLock { $0 }.allSatisfy { $0.readyVersion() == head }
            }
        }
    }

    private static let actions = [
        #"{"type":"increase"}"#,
        #"{"type":"decrease"}"#,
        #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#,
        #"{"type":"logout"}"#,
    ]

    /// What a writer saw acknowledged: version → action type.
    private typealias Acknowledged = Lock<[UInt64: String]>

    /// Posts one random action to `replica`; records it when acknowledged with 200.
    private static func post(
        _ replica: Replica, _ random: inout SplitMix64, acknowledged: Acknowledged, key: String? = nil
    ) throws -> TestHTTPResponse {
        let json = actions[Int(random.next() % UInt64(actions.count))]
        var headers = [("Content-Type", "application/json")]
        if let key { headers.append(("Idempotency-Key", key)) }
        let response = try replica.server.send(method: "POST", path: "/actions", headers: headers, body: Array(json.utf8))
        if response.status == 200 {
            let version = try #require(versionOf(response.body))
            let type = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["type"] as? String)
            acknowledged.withLock { $0[version] = type }
        }
        return response
    }

    private static func versionOf(_ body: [UInt8]) -> UInt64? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return (json["version"] as? NSNumber)?.uint64Value
    }

    /// Reads `client`'s events up to `head`: version → data; fails on a gap or a repeat.
    private static func events(of client: SSEClient, through head: UInt64, from first: UInt64) throws -> [UInt64: String] {
        var seen: [UInt64: String] = [:]
        var expected = first
        while expected <= head {
            let event = try #require(try client.nextEvent(timeout: .seconds(30)), "stream ended before version \(head)")
            let version = try #require(event.id.flatMap { UInt64($0) })
            if version < expected { continue }  // the first event: the state when subscribing
            try #require(version == expected, "expected version \(expected), got \(version)")
            seen[version] = event.data
            expected += 1
        }
        return seen
    }

    /// The action type an event's data names.
    private static func actionType(_ data: String) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { return nil }
        return (json["action"] as? [String: Any])?["type"] as? String
    }

    @Test func threeReplicasServeOneStoreWithWritersAndSubscribersOnEach() throws {
        let cluster = try Cluster(count: 3)
        #expect(cluster.converge(at: 0))
        let subscribers = try (0..<6).map { index in try cluster[index % 3].server.subscribe() }
        let acknowledged = Acknowledged([:])
        let errors = runOnThreads(6) { writer in
            var random = SplitMix64(seed: UInt64(writer) + 1)
            let replica = cluster[writer % 3]
            for index in 0..<40 {
                let response = try Self.post(replica, &random, acknowledged: acknowledged)
                guard response.status == 200, let version = Self.versionOf(response.body) else {
                    throw TestHTTPError(code: .connectFailed, message: "writer \(writer) #\(index): \(response.status) \(response.bodyString)")
                }
                // Read your own writes: the replica written to shows that version at once.
                let state = try replica.server.get("/state")
                let etag = state.headers["ETag"] ?? ""
                guard let seen = UInt64(etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seen >= version else {
                    throw TestHTTPError(code: .connectFailed, message: "version \(version) acknowledged but /state shows \(etag)")
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let head: UInt64 = 240
        #expect(acknowledged.withLock { $0.count } == 240)
        #expect(cluster.converge(at: head))

        // Same state, byte for byte, on every replica.
        let states = try (0..<3).map { try cluster[$0].server.get("/state").body }
        #expect(states[0] == states[1] && states[1] == states[2])
        // Every subscriber on every replica: every version once, in order, identical events.
        let streams = try subscribers.map { try Self.events(of: $0, through: head, from: 1) }
        for stream in streams.dropFirst() {
            #expect(stream == streams[0])
        }
        // Each acknowledged version holds the action its writer sent.
        for (version, type) in acknowledged.withLock({ $0 }) {
            #expect(Self.actionType(streams[0][version] ?? "") == type, "version \(version)")
        }
        // The action log is the same from every replica.
        let logs = try (0..<3).map { try cluster[$0].server.get("/actions?since=230&limit=100").body }
        #expect(logs[0] == logs[1] && logs[1] == logs[2])
    }

    /// PostgreSQL prints a `jsonb` payload with spaces and its own key order; the action log
    /// of a replica shows the compact form, keys sorted, as a single server and the events do.
    @Test func theActionLogOfAReplicaShowsPayloadsInTheServersCompactForm() throws {
        let cluster = try Cluster(count: 2)
        #expect(cluster.converge(at: 0))
        let login = #"{"type":"login","payload":{"lastName":"Lovelace","firstName":"Ada"}}"#
        #expect(try cluster[0].server.post(login).status == 200)
        #expect(cluster.converge(at: 1))
        for index in 0..<2 {
            let log = try cluster[index].server.get("/actions?since=0&limit=1").bodyString
            #expect(log.contains(#""payload":{"firstName":"Ada","lastName":"Lovelace","loggedInAt":"#), "\(log)")
            #expect(!log.contains("\": "), "no spaces after names: \(log)")
        }
    }

    @Test func ifMatchAndIdempotencyKeysHoldAcrossReplicas() throws {
        let cluster = try Cluster(count: 2)
        let a = cluster[0], b = cluster[1]
        #expect(cluster.converge(at: 0))
        let json = Array(#"{"type":"increase"}"#.utf8)
        let headers = [("Content-Type", "application/json")]

        // If-Match is checked against the log's head, whichever replica answers.
        let first = try a.server.send(method: "POST", path: "/actions", headers: headers + [("If-Match", "\"0\"")], body: json)
        #expect(first.status == 200 && Self.versionOf(first.body) == 1)
        let stale = try b.server.send(method: "POST", path: "/actions", headers: headers + [("If-Match", "\"0\"")], body: json)
        #expect(stale.status == 412)
        #expect(stale.bodyString.contains("\"currentVersion\":1"))
        let current = try b.server.send(method: "POST", path: "/actions", headers: headers + [("If-Match", "\"1\"")], body: json)
        #expect(current.status == 200 && Self.versionOf(current.body) == 2)

        // A key used on one replica is replayed by another, with the same answer.
        let keyed = headers + [("Idempotency-Key", "order-7")]
        let original = try a.server.send(method: "POST", path: "/actions", headers: keyed, body: json)
        #expect(original.status == 200 && Self.versionOf(original.body) == 3)
        let retry = try b.server.send(method: "POST", path: "/actions", headers: keyed, body: json)
        #expect(retry.status == 200 && retry.body == original.body)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        let reused = try b.server.send(method: "POST", path: "/actions", headers: keyed, body: Array(#"{"type":"decrease"}"#.utf8))
        #expect(reused.status == 422)
        #expect(cluster.converge(at: 3), "the retries applied nothing")
    }

    /// Holds every `logout` (the request is answered 202, nothing is appended) and counts how
    /// often it ran, on whichever replica.
    private struct HoldLogouts: Middleware {
        let runs: Lock<Int>

        func onNext(for state: User?, action: Logout, interceptor: Interceptor<Logout, User?>, dispatcher: any Dispatcher) {
            runs.withLock { $0 += 1 }
        }
    }

    @Test func answersOfKeyedRequestsThatAppendNothingHoldAcrossReplicas() throws {
        let runs = Lock(0)
        let cluster = try Cluster(count: 2, middleware: [RejectSecondLogin(), HoldLogouts(runs: runs)])
        let a = cluster[0], b = cluster[1]
        #expect(cluster.converge(at: 0))
        let headers = [("Content-Type", "application/json")]
        let login = Array(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#.utf8)
        #expect(try a.server.send(method: "POST", path: "/actions", headers: headers, body: login).status == 200)
        #expect(cluster.converge(at: 1))

        // Middleware rejected the first action: 422, kept in the log, replayed by the other replica.
        let rejected = try a.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "login-2")], body: login)
        #expect(rejected.status == 422)
        let rejectedAgain = try b.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "login-2")], body: login)
        #expect(rejectedAgain.status == 422)
        #expect(rejectedAgain.headers["Idempotent-Replayed"] == "true")
        #expect(rejectedAgain.body == rejected.body)

        // Middleware held the action: 202, kept; the retry elsewhere runs no middleware again.
        let logout = Array(#"{"type":"logout"}"#.utf8)
        let held = try a.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "logout-1")], body: logout)
        #expect(held.status == 202)
        #expect(runs.withLock { $0 } == 1)
        let heldAgain = try b.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "logout-1")], body: logout)
        #expect(heldAgain.status == 202)
        #expect(heldAgain.headers["Idempotent-Replayed"] == "true")
        #expect(heldAgain.body == held.body)
        #expect(runs.withLock { $0 } == 1, "the retry ran the middleware again")
        // The key stays taken for another request, and the action log gained nothing.
        let reused = try b.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "logout-1")], body: login)
        #expect(reused.status == 422)
        #expect(reused.bodyString.contains("idempotency-key-reused"))
        #expect(cluster.converge(at: 1))
    }

    /// An action that would change nothing (`navigation.pop` at the root) answers the version the
    /// replica applied; with a key that answer is kept in the log, so a retry on another replica
    /// gets it instead of popping a screen pushed meanwhile (http-api.md, "Navigation").
    @Test func theKeptAnswerOfAnUnchangedNavigationHoldsAcrossReplicas() throws {
        let cluster = try Cluster(count: 2)
        let a = cluster[0], b = cluster[1]
        #expect(cluster.converge(at: 0))
        let headers = [("Content-Type", "application/json")]
        let pop = Array(#"{"type":"navigation.pop"}"#.utf8)
        let keyed = headers + [("Idempotency-Key", "pop-at-root-1")]
        let first = try a.server.send(method: "POST", path: "/actions", headers: keyed, body: pop)
        #expect(first.status == 200 && first.bodyString == #"{"version":0}"#)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        let push = Array(#"{"type":"navigation.push","payload":{"screen":"greetings"}}"#.utf8)
        #expect(try a.server.send(method: "POST", path: "/actions", headers: headers, body: push).bodyString == #"{"version":1}"#)
        #expect(cluster.converge(at: 1))
        let retry = try b.server.send(method: "POST", path: "/actions", headers: keyed, body: pop)
        #expect(retry.status == 200 && retry.bodyString == #"{"version":0}"#, "the kept answer, not a pop of the pushed screen")
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(cluster.converge(at: 1), "the retry appended nothing")
        let navigation = try b.server.send(method: "GET", path: "/viewmodels/navigation")
        #expect(navigation.bodyString.contains(#""top":{"key":null,"screen":"greetings""#), "the retry popped nothing")
        // Without a key the same action is decided anew each time, and appends nothing either.
        #expect(try b.server.send(method: "POST", path: "/actions", headers: headers, body: Array(#"{"type":"navigation.dismissModal"}"#.utf8)).bodyString == #"{"version":1}"#)
        #expect(cluster.converge(at: 1))
    }

    @Test func actionsThePostgresLogCannotStoreAre422AndNothingElseIsAffected() throws {
        let cluster = try Cluster(count: 2)
        let a = cluster[0], b = cluster[1]
        #expect(cluster.converge(at: 0))
        let headers = [("Content-Type", "application/json")]
        // Valid JSON and a valid action, but jsonb cannot hold U+0000 in a string.
        let nul = Array(#"{"type":"login","payload":{"firstName":"a\u0000b","lastName":"c"}}"#.utf8)
        let refused = try a.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "nul-1")], body: nul)
        #expect(refused.status == 422)
        #expect(refused.bodyString.contains("urn:remvvm:problem:action-not-storable"))
        #expect(refused.bodyString.contains("nothing was appended"))
        // Nothing was appended, the key was not kept, and the replicas go on.
        let next = try b.server.send(method: "POST", path: "/actions", headers: headers, body: Array(#"{"type":"increase"}"#.utf8))
        #expect(next.status == 200 && Self.versionOf(next.body) == 1)
        let again = try a.server.send(method: "POST", path: "/actions", headers: headers + [("Idempotency-Key", "nul-1")], body: nul)
        #expect(again.status == 422)
        #expect(cluster.converge(at: 1))
        #expect(try a.server.send(method: "GET", path: "/healthz").status == 200)
    }

    @Test func metricsShowAReplicasAppendsLagAndWhetherItFollows() throws {
        let cluster = try Cluster(count: 2)
        let a = cluster[0], b = cluster[1]
        #expect(cluster.converge(at: 0))
        for _ in 0..<3 {
            let posted = try a.server.send(
                method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(#"{"type":"increase"}"#.utf8)
            )
            #expect(posted.status == 200)
        }
        #expect(cluster.converge(at: 3))
        func metric(_ replica: Replica, _ name: String) throws -> Double? {
            let text = try replica.server.get("/metrics").bodyString
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
        #expect(try metric(a, "remvvm_replica_following") == 1)
        #expect(try metric(a, "remvvm_replica_lag_versions") == 0)
        // Registered at start (and renewed since): when, by the wall clock.
        let registered = try #require(try metric(a, "remvvm_replica_registration_renewed_timestamp_seconds"))
        #expect(abs(registered - Date().timeIntervalSince1970) < 120, "\(registered)")
        #expect(try metric(a, "remvvm_store_version") == 3)
        // The appends were a's: one transaction per request here (each waited for the previous).
        #expect(try metric(a, "remvvm_journal_batch_actions_sum") == 3)
        #expect(try metric(a, "remvvm_journal_batch_actions_count") == 3)
        #expect(try (metric(a, "remvvm_journal_commit_duration_seconds_count") ?? 0) == 3)
        // b appended nothing but applied everything.
        #expect(try (metric(b, "remvvm_journal_batch_actions_count") ?? 0) == 0)
        #expect(try metric(b, "remvvm_store_version") == 3)
        #expect(try metric(b, "remvvm_replica_lag_versions") == 0)
        // While PostgreSQL is down the replica says it does not follow.
        cluster.stopPostgres()
        #expect(waitUntil(timeout: .seconds(15)) { (try? metric(b, "remvvm_replica_following")) == 0 })
        try cluster.startPostgres()
        #expect(waitUntil(timeout: .seconds(15)) { (try? metric(b, "remvvm_replica_following")) == 1 })
    }

    /// A client that read version N on one replica and reconnects to another that has not applied
    /// N yet (behind a load balancer) resumes where it was once that replica applies N, instead of
    /// being reset to the older state it holds (noticed last session: it got the reset).
    @Test func aStreamResumingOnAReplicaThatHasNotAppliedItsVersionYetWaitsForIt() throws {
        let cluster = try Cluster(count: 2)
        let a = cluster[0], b = cluster[1]
        #expect(cluster.converge(at: 0))
        // b applies nothing while the test holds its store.
        let hold = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let holder = startThread(named: "test-hold") { [store = b.server.store] in
            store.exclusively {
                holding.signal()
                hold.wait()
            }
        }
        #expect(holder != nil)
        holding.wait()
        for _ in 0..<3 {
            #expect(try a.server.post(#"{"type":"increase"}"#).status == 200)
        }
        // b's follower learns the head from the log's doorbell, then stops at applying.
        let log = try #require((b.server.server.service.root.backend as? ReplicaBackend<AppState>)?.log)
        #expect(waitUntil(timeout: .seconds(10)) { log.knownHead >= 1 }, "b knows the log holds version 1 at least")
        let known = log.knownHead
        #expect(b.server.store.version == 0, "and has applied nothing")
        let opened = Mailbox<HandedOver<SSEClient>>()
        let opener = startThread(named: "test-resume") { [port = b.port] in
            if let client = try? SSEClient(port: port, path: "/events", headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "\(known)")]) {
                opened.post(HandedOver(client))
            }
        }
        #expect(opened.next(timeout: .milliseconds(300)) == nil, "no answer while b has not applied version \(known)")
        hold.signal()
        let client = try #require(opened.next(timeout: .seconds(10))).value
        #expect(client.status == 200)
        #expect(client.headers["ReMVVM-Replay"] == nil, "resumed, not reset")
        #expect(try a.server.post(#"{"type":"increase"}"#).status == 200)
        let events = try Self.events(of: client, through: 4, from: known + 1)
        #expect(events.keys.sorted() == Array(known + 1...4))
        #expect(!events.values.contains { $0.contains(#""reset""#) })
        for thread in [holder, opener].compactMap({ $0 }) { pthread_join(thread, nil) }
    }

    @Test func aLogEntryThisBuildCannotReadStopsTheReplicaAndHealthSaysWhy() throws {
        let cluster = try Cluster(count: 1)
        let replica = cluster[0]
        #expect(cluster.converge(at: 0))
        // Another build appended an action this one does not know.
        let other = try PostgresSharedLog(conninfo: cluster.conninfo)
        try other.start(applied: 0) { _ in }
        defer { other.stop() }
        let appended = Lock<Result<LogGroupOutcome, JournalError>?>(nil)
        other.submit(LogGroup(actions: [
            LoggedAction(type: "increase", payload: [], time: 0),
            LoggedAction(type: "teleport", payload: Array("{}".utf8), time: 0),
        ])) { result in
            appended.withLock { $0 = result }
            appended.notifyAll()
        }
        #expect(appended.wait(timeout: .seconds(10)) { $0 != nil })
        #expect(waitUntil(timeout: .seconds(10)) { (try? replica.server.get("/healthz"))?.status == 503 })
        let health = try replica.server.get("/healthz")
        #expect(health.bodyString.contains("\"status\":\"stopped\""))
        #expect(health.bodyString.contains("teleport") && health.bodyString.contains("2"), "\(health.bodyString)")
        #expect(try replica.server.get("/state").headers["ETag"] == "\"1\"", "applied up to the entry before, never past it")
        let refused = try replica.server.post(#"{"type":"increase"}"#)
        #expect(refused.status == 503)
        #expect(refused.bodyString.contains("replica-not-ready"))
    }

    @Test func postgresRestartedMidLoadLosesNothingAcknowledgedAndReplicasCatchUp() throws {
        let cluster = try Cluster(count: 3)
        #expect(cluster.converge(at: 0))
        let acknowledged = Acknowledged([:])
        let refused = Lock(0)
        let phase = Lock(0)  // 0: before the restart, 1: PostgreSQL down, 2: back up, 3: stop
        let controllerErrors = Lock<[String]>([])
        let errors = runOnThreads(7) { thread in
            guard thread < 6 else {
                // The controller: restart PostgreSQL once writes are flowing, then end the run.
                defer { phase.withLock { $0 = 3 } }
                guard waitUntil(timeout: .seconds(30), { acknowledged.withLock { $0.count } >= 60 }) else {
                    return controllerErrors.withLock { $0.append("writes did not start") }
                }
                cluster.stopPostgres()
                phase.withLock { $0 = 1 }
                if !waitUntil(timeout: .seconds(10), { refused.withLock { $0 } > 0 }) {
                    controllerErrors.withLock { $0.append("no write was refused while PostgreSQL was down") }
                }
                if !waitUntil(timeout: .seconds(10), { (try? cluster[0].server.get("/healthz"))?.status == 503 }) {
                    controllerErrors.withLock { $0.append("/healthz did not say 503 while PostgreSQL was down") }
                }
                try cluster.startPostgres()
                phase.withLock { $0 = 2 }
                if !waitUntil(timeout: .seconds(60), { (try? cluster[1].server.get("/healthz"))?.status == 200 }) {
                    controllerErrors.withLock { $0.append("replica 1 did not become ready again") }
                }
                return
            }
            let writer = thread
            var random = SplitMix64(seed: UInt64(writer) + 100)
            let replica = cluster[writer % 3]
            var sentAfterRestart = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while phase.withLock({ $0 }) < 3 || sentAfterRestart < 20 {
                guard ContinuousClock.now < deadline else {
                    let health = (try? replica.server.get("/healthz").bodyString) ?? "?"
                    throw TestHTTPError(code: .connectFailed, message: "writer \(writer): no write acknowledged after the restart; /healthz: \(health)")
                }
                let response = try Self.post(replica, &random, acknowledged: acknowledged, key: "w\(writer)-\(random.next())")
                if response.status == 503 {
                    refused.withLock { $0 += 1 }
                    usleep(20_000)  // a client's pause before it retries, not synchronization
                } else if response.status != 200 {
                    throw TestHTTPError(code: .connectFailed, message: "\(response.status) \(response.bodyString)")
                }
                if phase.withLock({ $0 }) >= 2, response.status == 200 { sentAfterRestart += 1 }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(controllerErrors.withLock { $0 }.isEmpty, "\(controllerErrors.withLock { $0 })")

        let all = acknowledged.withLock { $0 }
        let head = try #require(all.keys.max())
        let appendedHead = try PostgresSharedLog(conninfo: cluster.conninfo).head()
        #expect(cluster.converge(at: appendedHead, timeout: .seconds(60)))
        let states = try (0..<3).map { try cluster[$0].server.get("/state").body }
        #expect(states[0] == states[1] && states[1] == states[2])
        // Every acknowledged version is in the log with its action.
        var logged: [UInt64: String] = [:]
        var since: UInt64 = 0
        while since < head {
            let page = try cluster[2].server.get("/actions?since=\(since)&limit=1000")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])
            let actions = try #require(json["actions"] as? [[String: Any]])
            guard let last = actions.last else { break }
            for action in actions {
                logged[(action["version"] as! NSNumber).uint64Value] = action["type"] as? String
            }
            since = (last["version"] as! NSNumber).uint64Value
        }
        for (version, type) in all {
            #expect(logged[version] == type, "acknowledged version \(version) (\(type)) is in the log")
        }
    }

    @Test func aReplicaRestartedMidLoadStartsFromItsSnapshotAndCatchesUp() throws {
        let cluster = try Cluster(count: 2, snapshotEvery: 25)
        #expect(cluster.converge(at: 0))
        let acknowledged = Acknowledged([:])
        var random = SplitMix64(seed: 7)
        for _ in 0..<60 {
            #expect(try Self.post(cluster[1], &random, acknowledged: acknowledged).status == 200)
        }
        #expect(cluster.converge(at: 60))
        // Stop replica 0 (its snapshot is written at stop), write on, start it again.
        let directory = cluster[0].directory
        cluster.replicas.withLock { $0[0].server.server.shutdown() }
        for _ in 0..<40 {
            #expect(try Self.post(cluster[1], &random, acknowledged: acknowledged).status == 200)
        }
        let restarted = try Replica(conninfo: cluster.conninfo, directory: directory, name: "r0", snapshotEvery: 25)
        cluster.replicas.withLock { $0[0] = restarted }
        #expect(cluster.converge(at: 100))
        #expect(try cluster[0].server.get("/state").body == cluster[1].server.get("/state").body)
        // It writes again, and both see it.
        #expect(try Self.post(cluster[0], &random, acknowledged: acknowledged).status == 200)
        #expect(cluster.converge(at: 101))
    }

    @Test func aReplicaStartedWhilePostgresIsDownServesHealth503UntilItCanFollow() throws {
        let cluster = try Cluster(count: 0)
        cluster.stopPostgres()
        let replica = try Replica(
            conninfo: cluster.conninfo, directory: cluster.root.path + "/late", name: "late", connectLater: true, replicaRenewal: .seconds(1)
        )
        cluster.replicas.withLock { $0 = [replica] }
        let health = try replica.server.get("/healthz")
        #expect(health.status == 503)
        #expect(health.bodyString.contains("\"replica\":\"late\""), "\(health.bodyString)")
        #expect(try replica.server.post(#"{"type":"increase"}"#).status == 503, "no writes before it follows the log")
        #expect(try replica.server.get("/state").status == 200, "reads are served meanwhile")
        let actionLog = try replica.server.get("/actions")
        #expect(actionLog.status == 503 && actionLog.headers["Retry-After"] == "1", "an outage, not a 500: \(actionLog.bodyString)")

        try cluster.startPostgres()
        #expect(cluster.converge(at: 0), "it connects and follows once PostgreSQL is up")
        let posted = try replica.server.post(#"{"type":"increase"}"#)
        #expect(posted.status == 200 && Self.versionOf(posted.body) == 1)
        // It could not register at start; its renewals register it once PostgreSQL is up.
        let connection = try PostgresConnection(conninfo: cluster.conninfo)
        defer { connection.close() }
        #expect(waitUntil(timeout: .seconds(30)) {
            (try? connection.execute("SELECT snapshot_version FROM remvvm_replicas WHERE name = 'late'"))?.rows == [["0"]]
        })
    }

    /// The helper review's case: a server on its own started on a replica's data directory went
    /// on from the replica's snapshot with versions of its own; started as a replica again, it
    /// followed the log from there, its state no longer the log's.
    @Test func aReplicasDataDirectoryAndASingleNodeOneAreNeverSwapped() throws {
        let postgres = try PostgresServer()
        let replicaDirectory = try TemporaryDirectory(prefix: "remvvm-replica-role")
        do {
            let replica = try Replica(conninfo: postgres.conninfo, directory: replicaDirectory.path, name: "r")
            #expect(waitUntil(timeout: .seconds(15)) { replica.readyVersion() == 0 })
            #expect(try replica.server.post(#"{"type":"increase"}"#).status == 200)
            replica.server.server.shutdown()  // writes its snapshot of version 1
        }
        #expect {
            _ = try LiveServer(journal: try SQLiteJournalStorage(directory: replicaDirectory.path, sync: .off))
        } throws: { error in
            "\(error)".contains("belongs to a replica of a shared PostgreSQL log")
        }
        // Still the replica's: it starts there again.
        let again = try Replica(conninfo: postgres.conninfo, directory: replicaDirectory.path, name: "r")
        #expect(waitUntil(timeout: .seconds(15)) { again.readyVersion() == 1 })
        again.server.server.shutdown()

        // A single-node journal without records (none posted; or all removed by retention) is
        // refused as well: the records alone could not tell.
        let singleDirectory = try TemporaryDirectory(prefix: "remvvm-single-role")
        do {
            let single = try LiveServer(journal: try SQLiteJournalStorage(directory: singleDirectory.path, sync: .off))
            single.server.shutdown()
        }
        #expect(try Self.replicaRefusal(on: singleDirectory.path, postgres).contains("a replica must not start from it"))
    }

    /// PostgreSQL ending the connections while they are idle (a restart, `pg_terminate_backend`):
    /// the first read of the action log and the first keyed write after `/healthz` said ok again
    /// failed on the old connections (500 and 503; from a review).
    @Test func connectionsEndedWhileIdleAreOpenedAgainBeforeTheirNextUse() throws {
        let cluster = try Cluster(count: 1)
        let replica = cluster[0]
        #expect(cluster.converge(at: 0))
        #expect(try replica.server.post(#"{"type":"increase"}"#, headers: [("Idempotency-Key", "first")]).status == 200)
        #expect(try replica.server.get("/actions").status == 200)
        let admin = try PostgresConnection(conninfo: cluster.conninfo)
        defer { admin.close() }
        let ended = try #require(try admin.execute("SELECT clock_timestamp()::text").rows.first?.first ?? nil)
        _ = try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()")
        // The follower is back once a connection opened since has read the log (the request
        // connections stay ended until used), and following once /healthz says ok after that.
        #expect(waitUntil(timeout: .seconds(15)) {
            let reads = try? admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_start > $1::timestamptz AND query LIKE 'SELECT version, type, payload%'", [ended]
            )
            return reads?.rows == [["1"]]
        })
        #expect(waitUntil(timeout: .seconds(15)) {
            (try? replica.server.get("/healthz"))?.status == 200 && (try? replica.server.post(#"{"type":"increase"}"#))?.status == 200
        })
        let log = try replica.server.get("/actions")
        #expect(log.status == 200, "\(log.bodyString)")
        let keyed = try replica.server.post(#"{"type":"increase"}"#, headers: [("Idempotency-Key", "second")])
        #expect(keyed.status == 200, "\(keyed.bodyString)")
    }

    /// A replica's snapshots belong to one log (`remvvm_meta` key `log`): started on another
    /// log whose head is past its snapshot, it went on from its own state with the other log's
    /// versions, and said ok (from a review).
    @Test func aDataDirectoryFromAnotherLogIsRefusedAtStart() throws {
        let postgres = try PostgresServer()
        let admin = try PostgresConnection(conninfo: postgres.conninfo)
        defer { admin.close() }
        _ = try admin.execute("CREATE DATABASE other")
        let otherLog = postgres.conninfo.replacingOccurrences(of: "dbname=postgres", with: "dbname=other")
        let root = try TemporaryDirectory(prefix: "remvvm-foreign-log")
        for (conninfo, directory, posts) in [(postgres.conninfo, "/first", 2), (otherLog, "/second", 5)] {
            let replica = try Replica(conninfo: conninfo, directory: root.path + directory, name: "r")
            #expect(waitUntil(timeout: .seconds(15)) { replica.readyVersion() == 0 })
            for _ in 0..<posts { #expect(try replica.server.post(#"{"type":"increase"}"#).status == 200) }
            replica.server.server.shutdown()
        }
        let log = try PostgresSharedLog(conninfo: otherLog)
        let snapshots = try SQLiteJournalStorage(directory: root.path + "/first", sync: .off)
        let error = try #require(throws: (any Error).self) {
            _ = try LiveServer(replication: ReplicaConfiguration(log: log, snapshots: snapshots, name: "x"))
        }
        #expect("\(error)".contains("belong to the shared log"), "\(error)")
        let registered = try PostgresConnection(conninfo: otherLog)
        defer { registered.close() }
        #expect(try registered.execute("SELECT name FROM remvvm_replicas WHERE name = 'x'").rows.isEmpty, "nothing registered in that log")
    }

    /// Each time the follower reaches the log again, it checks that the log is still the one its
    /// state came from and holds every version applied; otherwise it stops, saying why, and
    /// writes are refused (the database replaced, or restored from an older backup).
    @Test(arguments: [
        ("UPDATE remvvm_meta SET value = 'another' WHERE key = 'log'", "belong to the shared log"),
        ("UPDATE remvvm_head SET version = 1", "ends at version 1, but this replica has applied version 3"),
    ])
    func aLogReplacedWhileTheReplicaRunsStopsItWhenItReconnects(change: String, reason: String) throws {
        let cluster = try Cluster(count: 1)
        let replica = cluster[0]
        #expect(cluster.converge(at: 0))
        for _ in 0..<3 { #expect(try replica.server.post(#"{"type":"increase"}"#).status == 200) }
        let admin = try PostgresConnection(conninfo: cluster.conninfo)
        defer { admin.close() }
        _ = try admin.execute(change)
        _ = try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()")
        #expect(waitUntil(timeout: .seconds(15)) { (try? replica.server.get("/healthz"))?.bodyString.contains("\"status\":\"stopped\"") == true })
        let health = try replica.server.get("/healthz").bodyString
        #expect(health.contains(reason), "\(health)")
        #expect(try replica.server.post(#"{"type":"increase"}"#).status == 503)
        #expect(try replica.server.get("/state").headers["ETag"] == "\"3\"", "nothing applied from that log")
    }

    @Test func aDataDirectoryWithASingleNodeJournalIsRefused() throws {
        let postgres = try PostgresServer()
        let directory = try TemporaryDirectory(prefix: "remvvm-replica-refuse")
        let journal = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        try journal.append([JournalRecord(version: 1, type: "increase", payload: [], time: 0)])
        journal.close()
        #expect(try Self.replicaRefusal(on: directory.path, postgres).contains("single-node journal"))
    }

    /// Why a replica refuses to start on `directory` (fails the test when it starts).
    private static func replicaRefusal(on directory: String, _ postgres: PostgresServer) throws -> String {
        let log = try PostgresSharedLog(conninfo: postgres.conninfo)
        let snapshots = try SQLiteJournalStorage(directory: directory, sync: .off)
        let error = try #require(throws: (any Error).self) {
            _ = try LiveServer(replication: ReplicaConfiguration(log: log, snapshots: snapshots, name: "r"))
        }
        return "\(error)"
    }
}
