import ConcurrencyKit
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
@testable import PostgresJournal
import PostgresTestSupport
import ReMVVM
import ReMVVMServer
import ReMVVMServerCommand
import SQLiteJournal
import Testing

/// Every store of a shared PostgreSQL log served by every replica (`docs/replicas.md`, "Many
/// stores"): two servers on one log, over real sockets against a real PostgreSQL 15.
@Suite(.serialized) struct ReplicaStoresTests {
    /// One replica serving every store of the log, its snapshots in a directory of its own.
    final class StoreReplica: Sendable {
        let server: ReMVVMServer<AppState>
        let log: PostgresSharedLog
        let file: SQLiteJournalStorage

        init(
            conninfo: String, directory: String, name: String, maxLoaded: Int = 10_000, renewal: Duration? = nil,
            autoCreate: Bool = false, snapshotEvery: UInt64 = 10_000, retention: JournalRetention = .versions(1_000_000),
            makeStore: @escaping @Sendable () throws -> Store<AppState> = { try Store.example() },
            now: (@Sendable () -> Int64)? = nil
        ) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            log = try PostgresSharedLog(conninfo: conninfo, patience: .seconds(10))
            file = try SQLiteJournalStorage(directory: directory, sync: .off)
            var http = HTTPServerConfiguration()
            http.host = "127.0.0.1"
            http.port = 0
            var service = ServiceConfiguration()
            service.versionTags = .plain
            service.maxLoadedStores = maxLoaded
            service.autoCreateStores = autoCreate
            service.snapshotEvery = snapshotEvery
            service.journalRetention = retention
            server = ReMVVMServer(
                store: try Store.example(), actions: ExampleApp.actions, viewModels: ExampleApp.viewModels, http: http,
                service: service, replication: ReplicaConfiguration(log: log, snapshots: file, name: name, expiry: .seconds(3_600), renewal: renewal),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            var serving = StoreServing.replicas(of: log, snapshotsIn: file, makeStore: makeStore)
            if let now { serving.now = now }
            server.service.serveStores(serving)
            try server.start()
        }

        deinit {
            server.shutdown()
        }

        var port: Int { server.port }

        func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") throws -> TestHTTPResponse {
            var headers = headers
            if !body.isEmpty { headers.append(("Content-Type", "application/json")) }
            return try TestHTTPClient(port: port).send(method: method, path: path, headers: headers, body: Array(body.utf8))
        }

        func subscribe(_ path: String, lastEventID: String? = nil) throws -> SSEClient {
            var headers = [("Accept", "text/event-stream")]
            if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
            return try SSEClient(port: port, path: path, headers: headers)
        }

        /// Whether the log's one follower follows `store` in this process.
        func follows(_ store: String) throws -> Bool {
            log.connections.follower.isFollowing(try StoreID(store))
        }
    }

    /// A throwaway PostgreSQL with replicas `a` and `b` on it.
    final class Pair {
        let postgres: PostgresServer
        let root: TemporaryDirectory
        let a: StoreReplica
        let b: StoreReplica

        init(maxLoadedOnB: Int = 10_000, renewalOnB: Duration? = nil) throws {
            postgres = try PostgresServer()
            root = try TemporaryDirectory(prefix: "remvvm-replica-stores")
            a = try StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/a", name: "a")
            b = try StoreReplica(
                conninfo: postgres.conninfo, directory: root.path + "/b", name: "b", maxLoaded: maxLoadedOnB, renewal: renewalOnB
            )
            // Both follow the log (the catalog is read through it from then on).
            let ready = waitUntil(timeout: .seconds(30)) { [a, b] in
                [a, b].allSatisfy { (try? $0.send("GET", "/healthz").status) == 200 }
            }
            try #require(ready, "the replicas did not reach the log")
        }
    }

    private static func json(_ response: TestHTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    private static func counter(_ response: TestHTTPResponse) -> Int? {
        (json(response)["counter"] as? NSNumber)?.intValue
    }

    private static let increase = #"{"type":"increase"}"#

    /// Waits until `replica` shows `counter` in the state at `path`: a replica that has the store
    /// loaded applies another replica's writes a few milliseconds later (a read there is not
    /// behind the writer's answer; only the writer's own replica is).
    /// Starts `POST /stores/{store}/actions` (an increase) on its own thread and returns once its
    /// append waits for a row lock held from outside; the answer, when it comes, in the result.
    private static func increaseWaitingForALock(
        on replica: StoreReplica, _ store: String, postgres: PostgresServer
    ) throws -> Lock<TestHTTPResponse?> {
        let written = Lock<TestHTTPResponse?>(nil)
        Thread {
            let response = try? replica.send("POST", "/stores/\(store)/actions", body: Self.increase)
            written.withLock { $0 = response }
            written.notifyAll()
        }.start()
        let watcher = try PostgresConnection(conninfo: postgres.conninfo)
        defer { watcher.close() }
        #expect(waitUntil(timeout: .seconds(10)) {
            (try? watcher.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").rows.first?.first ?? nil) != "0"
        }, "the write's append waits for the row lock")
        return written
    }

    private static func eventually(_ replica: StoreReplica, _ path: String, showsCounter counter: Int) -> Bool {
        waitUntil(timeout: .seconds(10)) { (try? replica.send("GET", path)).flatMap(Self.counter) == counter }
    }

    @Test func aStoreCreatedOnOneReplicaIsListedAndServedByTheOther() throws {
        let pair = try Pair()
        #expect(try pair.a.send("PUT", "/stores/room-1").status == 201)
        #expect(try pair.b.send("PUT", "/stores/room-1").status == 200, "B sees the store A created")
        #expect(try pair.b.send("PUT", "/stores/room-2", headers: [("If-None-Match", "*")]).status == 201)
        #expect(try pair.a.send("PUT", "/stores/room-2", headers: [("If-None-Match", "*")]).status == 412)
        for replica in [pair.a, pair.b] {
            let listing = try replica.send("GET", "/stores?prefix=room-")
            let ids = (Self.json(listing)["stores"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == ["room-1", "room-2"])
        }

        let written = try pair.a.send("POST", "/stores/room-1/actions", body: "[\(Self.increase),\(Self.increase)]")
        #expect(written.status == 200 && written.bodyString == #"{"version":2}"#)
        // B loads the store on this request and answers once it applied what the log held.
        let read = try pair.b.send("GET", "/stores/room-1/state")
        #expect(read.status == 200 && Self.counter(read) == 2)
        #expect(try pair.b.send("GET", "/stores/room-2/state").status == 200)
        #expect(Self.counter(try pair.b.send("GET", "/state")) == 0, "default is another store")
        #expect(try pair.b.send("GET", "/stores/room-3/state").status == 404)
        #expect((Self.json(try pair.b.send("GET", "/stores/room-1"))["version"] as? NSNumber)?.intValue == 2)
    }

    @Test func aWriteOnOneReplicaReachesTheOthersStateAndEvents() throws {
        let pair = try Pair()
        #expect(try pair.a.send("PUT", "/stores/doc").status == 201)
        let events = try pair.b.subscribe("/stores/doc/events")
        #expect(events.status == 200)
        let first = try #require(try events.nextEvent(timeout: .seconds(10)))
        #expect(first.id?.hasPrefix("0-") == true)
        for expected in 1...3 {
            let response = try pair.a.send("POST", "/stores/doc/actions", body: Self.increase)
            #expect(response.bodyString == #"{"version":\#(expected)}"#)
            let event = try #require(try events.nextEvent(timeout: .seconds(10)), "B's stream ended")
            #expect(event.id?.hasPrefix("\(expected)-") == true)
            #expect(event.data.contains(#""counter":\#(expected)"#), "\(event.data)")
        }
        // B writes too: one order for both, read back on A.
        #expect(try pair.b.send("POST", "/stores/doc/actions", body: Self.increase).bodyString == #"{"version":4}"#)
        #expect(Self.eventually(pair.a, "/stores/doc/state", showsCounter: 4))
        #expect(Self.counter(try pair.a.send("GET", "/state")) == 0)
    }

    @Test func ifMatchAndIdempotencyKeysHoldPerStoreAcrossReplicas() throws {
        let pair = try Pair()
        #expect(try pair.a.send("PUT", "/stores/x").status == 201)
        #expect(try pair.a.send("PUT", "/stores/y").status == 201)
        let created = try pair.a.send("POST", "/stores/x/actions", body: Self.increase)
        let etag = try #require(try pair.a.send("GET", "/stores/x/state").headers["ETag"])
        #expect(created.status == 200 && etag.hasPrefix("\"1-"))

        // If-Match against the store's own head, on the other replica.
        #expect(try pair.b.send("POST", "/stores/x/actions", headers: [("If-Match", etag)], body: Self.increase).status == 200)
        let stale = try pair.a.send("POST", "/stores/x/actions", headers: [("If-Match", etag)], body: Self.increase)
        #expect(stale.status == 412)
        // A tag of x names nothing in y, though y is at version 0 and x's tag of 0 would look alike.
        let y0 = try #require(try pair.b.send("GET", "/stores/y/state").headers["ETag"])
        #expect(try pair.b.send("POST", "/stores/y/actions", headers: [("If-Match", etag)], body: Self.increase).status == 412)
        #expect(try pair.a.send("POST", "/stores/y/actions", headers: [("If-Match", y0)], body: Self.increase).status == 200)

        // A key is replayed by the other replica in its store, and means nothing in another store.
        let keyed = [("Idempotency-Key", "order-1")]
        let original = try pair.a.send("POST", "/stores/x/actions", headers: keyed, body: Self.increase)
        #expect(original.status == 200 && original.bodyString == #"{"version":3}"#)
        let retry = try pair.b.send("POST", "/stores/x/actions", headers: keyed, body: Self.increase)
        #expect(retry.status == 200 && retry.body == original.body)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        let elsewhere = try pair.b.send("POST", "/stores/y/actions", headers: keyed, body: #"{"type":"decrease"}"#)
        #expect(elsewhere.status == 200 && elsewhere.bodyString == #"{"version":2}"#)
        #expect(elsewhere.headers["Idempotent-Replayed"] == nil)
        #expect((Self.json(try pair.a.send("GET", "/stores/x"))["version"] as? NSNumber)?.intValue == 3, "the retry appended nothing")
        #expect(Self.eventually(pair.a, "/stores/y/state", showsCounter: 0))
    }

    @Test func aStoreDeletedOnOneReplicaEndsItsStreamsAndIsGoneOnTheOther() throws {
        let pair = try Pair()
        #expect(try pair.a.send("PUT", "/stores/room").status == 201)
        #expect(try pair.a.send("POST", "/stores/room/actions", body: "[\(Self.increase),\(Self.increase)]").status == 200)
        let oldTag = try #require(try pair.b.send("GET", "/stores/room/state").headers["ETag"])
        #expect(oldTag.hasPrefix("\"2-"))
        let events = try pair.b.subscribe("/stores/room/events")
        let current = try #require(try events.nextEvent(timeout: .seconds(10)))
        let oldEventID = try #require(current.id)

        #expect(try pair.a.send("DELETE", "/stores/room").status == 204)
        #expect(try events.waitForEnd(timeout: .seconds(10)) == .clean, "B's stream of the deleted store ends")
        #expect(waitUntil(timeout: .seconds(10)) { (try? pair.b.send("GET", "/stores/room/state").status) == 404 })
        #expect(try pair.b.send("GET", "/stores/room").status == 404)
        #expect(try pair.b.send("POST", "/stores/room/actions", body: Self.increase).status == 404)
        #expect(try !pair.b.follows("room"))

        // Created again (on B): version 0, and nothing of the old store matches the new one.
        #expect(try pair.b.send("PUT", "/stores/room").status == 201)
        let fresh = try pair.a.send("GET", "/stores/room/state")
        #expect(fresh.status == 200 && Self.counter(fresh) == 0)
        let freshTag = try #require(fresh.headers["ETag"])
        #expect(freshTag.hasPrefix("\"0-") && freshTag != oldTag)
        #expect(try pair.a.send("POST", "/stores/room/actions", headers: [("If-Match", oldTag)], body: Self.increase).status == 412)
        let resumed = try pair.b.subscribe("/stores/room/events", lastEventID: oldEventID)
        let reset = try #require(try resumed.nextEvent(timeout: .seconds(10)))
        #expect(reset.data.contains(#""reset":true"#) && reset.id?.hasPrefix("0-") == true, "\(reset)")
    }

    /// A write reaches a replica that still serves a store deleted and created again (its
    /// follower has not noticed): its append states the incarnation the replica serves, the log
    /// refuses it, and the client gets `404` — not a version appended to the new store that the
    /// replica never applied (then a `503` after waiting for it). Without `If-Match`: the one-call
    /// append, whose raise sees the new head row once the transaction holding it commits.
    @Test func aWriteToAStoreDeletedAndCreatedAgainBeforeTheReplicaNoticesIsNotFound() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-recreated")
        let replica = try StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/r", name: "r")
        #expect(waitUntil(timeout: .seconds(30)) { (try? replica.send("GET", "/healthz").status) == 200 })
        #expect(try replica.send("PUT", "/stores/p").status == 201)
        #expect(try replica.send("POST", "/stores/p/actions", body: "[\(Self.increase),\(Self.increase),\(Self.increase)]").status == 200)
        // Another replica deletes p and creates it again with 3 versions, in a transaction that
        // holds the new head row while the write's append waits for the old one (no doorbell).
        let admin = try PostgresConnection(conninfo: postgres.conninfo)
        defer { admin.close() }
        _ = try admin.execute("BEGIN")
        _ = try admin.execute("DELETE FROM remvvm_log WHERE store = 'p'")
        _ = try admin.execute("DELETE FROM remvvm_head WHERE store = 'p'")
        _ = try admin.execute("INSERT INTO remvvm_head (store, version, incarnation, created_at) VALUES ('p', 3, gen_random_uuid()::text, 1)")
        _ = try admin.execute(
            "INSERT INTO remvvm_log (store, version, type, payload, time) SELECT 'p', v, 'increase', NULL, 1 FROM generate_series(1, 3) v"
        )
        let written = try Self.increaseWaitingForALock(on: replica, "p", postgres: postgres)
        _ = try admin.execute("COMMIT")
        #expect(written.wait(timeout: .seconds(30)) { $0 != nil })
        let answer = try #require(written.withLock { $0 })
        #expect(answer.status == 404 && answer.bodyString.contains("urn:remvvm:problem:store-not-found"), "\(answer.status) \(answer.bodyString)")
        let head = try admin.execute("SELECT version FROM remvvm_head WHERE store = 'p'").rows.first?.first ?? nil
        #expect(head == "3", "nothing appended to the store created again")
    }

    /// With `autoCreateStores`, a write whose store is deleted while its append waits for the
    /// deletion's row lock is served again, as on a single server (where it waits for the deletion
    /// in the directory): the store is created anew and the write applied to it — not `404`.
    @Test func aWriteWhoseStoreIsDeletedWhileItWaitsCreatesItAgainWithAutoCreateStores() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-autocreate")
        let replica = try StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/r", name: "r", autoCreate: true)
        #expect(waitUntil(timeout: .seconds(30)) { (try? replica.send("GET", "/healthz").status) == 200 })
        #expect(try replica.send("POST", "/stores/p/actions", body: "[\(Self.increase),\(Self.increase)]").bodyString == #"{"version":2}"#)
        let before = try #require(try replica.send("GET", "/stores/p/state").headers["ETag"])
        // Another replica's deletion, holding p's head row while the write's append waits for it.
        let admin = try PostgresConnection(conninfo: postgres.conninfo)
        defer { admin.close() }
        _ = try admin.execute("BEGIN")
        _ = try admin.execute("DELETE FROM remvvm_log WHERE store = 'p'")
        _ = try admin.execute("DELETE FROM remvvm_head WHERE store = 'p'")
        let written = try Self.increaseWaitingForALock(on: replica, "p", postgres: postgres)
        _ = try admin.execute("COMMIT")
        #expect(written.wait(timeout: .seconds(30)) { $0 != nil })
        let answer = try #require(written.withLock { $0 })
        #expect(answer.status == 200 && answer.bodyString == #"{"version":1}"#, "\(answer.status) \(answer.bodyString)")
        let state = try replica.send("GET", "/stores/p/state")
        #expect(Self.counter(state) == 1 && state.headers["ETag"]?.hasPrefix("\"1-") == true && state.headers["ETag"] != before)
        let head = try admin.execute("SELECT version FROM remvvm_head WHERE store = 'p'").rows.first?.first ?? nil
        #expect(head == "1", "the store created anew holds the write alone")
    }

    /// Retention counts the replicas that registered a store: once A's snapshots let it remove
    /// the store's first records, B — which never loaded it — cannot load it. It says so: its
    /// answer is `503` without `Retry-After` (retrying there does not help) naming the cause,
    /// and its `/healthz` is `503` naming the store `unloadable` (it said ok before).
    @Test func aStoreWhoseFirstRecordsRetentionRemovedBeforeThisReplicaLoadedItIsUnloadableAndHealthSaysSo() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-unloadable")
        let a = try StoreReplica(
            conninfo: postgres.conninfo, directory: root.path + "/a", name: "a", snapshotEvery: 2, retention: .versions(1)
        )
        let b = try StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/b", name: "b")
        let replicas: [StoreReplica] = [a, b]
        #expect(waitUntil(timeout: .seconds(30)) { replicas.allSatisfy { (try? $0.send("GET", "/healthz").status) == 200 } })
        #expect(try a.send("PUT", "/stores/p").status == 201)
        for _ in 0..<6 { #expect(try a.send("POST", "/stores/p/actions", body: Self.increase).status == 200) }
        let watcher = try PostgresConnection(conninfo: postgres.conninfo)
        defer { watcher.close() }
        #expect(waitUntil(timeout: .seconds(10)) {
            (try? watcher.execute("SELECT min(version) FROM remvvm_log WHERE store = 'p'").rows.first?.first ?? nil).flatMap { Int($0) } ?? 0 > 1
        }, "A's snapshots let retention remove p's first records")

        let refused = try b.send("GET", "/stores/p/state")
        #expect(refused.status == 503 && refused.headers["Retry-After"] == nil, "\(refused.status) \(refused.headers)")
        #expect(refused.bodyString.contains("urn:remvvm:problem:store-unavailable") && refused.bodyString.contains("removed by journalRetention"), "\(refused.bodyString)")
        let health = try b.send("GET", "/healthz")
        #expect(health.status == 503, "\(health.bodyString)")
        let stores = try #require(Self.json(health)["stores"] as? [String: Any])
        #expect((stores["loaded"] as? Int) == 1 && (stores["unhealthy"] as? Int) == 1, "\(stores)")
        let failing = try #require((stores["failing"] as? [[String: Any]])?.first)
        #expect(failing["id"] as? String == "p" && failing["status"] as? String == "unloadable", "\(failing)")
        #expect(try a.send("GET", "/healthz").status == 200, "A serves p")
        #expect(Self.counter(try a.send("GET", "/stores/p/state")) == 6)
        // Deleted through A — B, which never loaded it, is not told — it is no longer counted:
        // B says ok again (before, B's /healthz stayed 503 until a request for p reached it).
        #expect(try a.send("DELETE", "/stores/p").status == 204)
        #expect(try b.send("GET", "/healthz").status == 200)
    }

    @Test func aStoreUnloadedOnAReplicaIsNoLongerFollowedAndResumesFromItsSnapshot() throws {
        // B keeps one store besides default loaded: loading another unloads the first.
        let pair = try Pair(maxLoadedOnB: 2)
        for id in ["p", "q"] { #expect(try pair.a.send("PUT", "/stores/\(id)").status == 201) }
        #expect(try pair.a.send("POST", "/stores/p/actions", body: "[\(Self.increase),\(Self.increase),\(Self.increase)]").status == 200)
        #expect(Self.counter(try pair.b.send("GET", "/stores/p/state")) == 3)
        #expect(try pair.b.follows("p"))

        #expect(try pair.b.send("GET", "/stores/q/state").status == 200)
        #expect((Self.json(try pair.b.send("GET", "/stores/p"))["loaded"] as? Bool) == false)
        #expect(try !pair.b.follows("p"), "an unloaded store is not read from the log")
        let p = try StoreID("p")
        let snapshot = try pair.b.file.storage(for: p)?.snapshot(atOrBefore: .max)
        #expect(snapshot?.version == 3, "unloading wrote its snapshot")

        // Written meanwhile on A; B loads it again from its snapshot and the log after it.
        #expect(try pair.a.send("POST", "/stores/p/actions", body: #"{"type":"decrease"}"#).bodyString == #"{"version":4}"#)
        let reloaded = try pair.b.send("GET", "/stores/p/state")
        #expect(Self.counter(reloaded) == 2 && reloaded.headers["ETag"]?.hasPrefix("\"4-") == true)
        #expect(try pair.b.follows("p"))
        #expect(try pair.b.send("POST", "/stores/p/actions", body: Self.increase).bodyString == #"{"version":5}"#)
    }

    /// A write's answer waits for this replica to apply what it appended; until then its store
    /// stays loaded: loading another past the limit does not unload it (an unload stopped
    /// following it, and the write, stored in the log, was answered 503 "not yet applied").
    @Test func aStoreWhoseWriteWaitsToBeAppliedIsNotUnloadedUnderIt() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-pending")
        let replica = try StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/r", name: "r", maxLoaded: 2)
        #expect(waitUntil(timeout: .seconds(30)) { (try? replica.send("GET", "/healthz").status) == 200 })
        for id in ["p", "q"] { #expect(try replica.send("PUT", "/stores/\(id)").status == 201) }
        #expect(try replica.send("POST", "/stores/p/actions", body: Self.increase).bodyString == #"{"version":1}"#)
        // p's head row locked from outside: the next write's append waits for it.
        let admin = try PostgresConnection(conninfo: postgres.conninfo)
        defer { admin.close() }
        _ = try admin.execute("BEGIN")
        _ = try admin.execute("SELECT version FROM remvvm_head WHERE store = 'p' FOR UPDATE")
        let written = try Self.increaseWaitingForALock(on: replica, "p", postgres: postgres)
        // q loads with p's write in flight: p is held, so it stays loaded and followed.
        #expect(try replica.send("GET", "/stores/q/state").status == 200)
        #expect(try replica.follows("p"))
        _ = try admin.execute("COMMIT")
        #expect(written.wait(timeout: .seconds(30)) { $0 != nil })
        let answer = try #require(written.withLock { $0 })
        #expect(answer.status == 200 && answer.bodyString == #"{"version":2}"#, "\(answer.status) \(answer.bodyString)")
        #expect(Self.counter(try replica.send("GET", "/stores/p/state")) == 2)
    }

    @Test func aStoreDeletedAndCreatedAgainWhileUnloadedIsNotRestoredFromTheOldSnapshot() throws {
        let pair = try Pair(maxLoadedOnB: 2)
        for id in ["p", "q"] { #expect(try pair.a.send("PUT", "/stores/\(id)").status == 201) }
        #expect(try pair.a.send("POST", "/stores/p/actions", body: "[\(Self.increase),\(Self.increase)]").status == 200)
        #expect(Self.counter(try pair.b.send("GET", "/stores/p/state")) == 2)
        #expect(try pair.b.send("GET", "/stores/q/state").status == 200)
        #expect(try pair.b.file.storage(for: StoreID("p"))?.snapshot(atOrBefore: .max)?.version == 2)

        #expect(try pair.a.send("DELETE", "/stores/p").status == 204)
        #expect(try pair.a.send("PUT", "/stores/p").status == 201)
        #expect(try pair.a.send("POST", "/stores/p/actions", body: #"{"type":"decrease"}"#).bodyString == #"{"version":1}"#)
        let reloaded = try pair.b.send("GET", "/stores/p/state")
        #expect(reloaded.status == 200 && Self.counter(reloaded) == -1, "\(reloaded.bodyString)")
        #expect(reloaded.headers["ETag"]?.hasPrefix("\"1-") == true)
    }

    @Test func aStoreDeletedOnTheReplicaItselfLosesItsLocalSnapshots() throws {
        let pair = try Pair()
        #expect(try pair.a.send("PUT", "/stores/gone").status == 201)
        #expect(try pair.a.send("POST", "/stores/gone/actions", body: Self.increase).status == 200)
        #expect(try pair.b.send("GET", "/stores/gone/state").status == 200)
        #expect(pair.b.server.service.unloadIdleStores() == 0, "not idle yet")
        #expect(try pair.b.send("DELETE", "/stores/gone").status == 204)
        #expect(try pair.b.file.describe(StoreID("gone")) == nil)
        #expect(try pair.a.log.describe(StoreID("gone")) == nil)
        #expect(waitUntil(timeout: .seconds(10)) { (try? pair.a.send("GET", "/stores/gone/state").status) == 404 })
    }

    /// A replica's registration of a store it unloaded holds that store's records back while the
    /// replica runs, however long it does not load the store again: the replica's renewal renews
    /// every registration of its name, not only `default`'s.
    @Test func aRunningReplicaRenewsTheRegistrationsOfStoresItUnloaded() throws {
        let pair = try Pair(maxLoadedOnB: 2, renewalOnB: .seconds(1))
        for id in ["p", "q"] { #expect(try pair.a.send("PUT", "/stores/\(id)").status == 201) }
        #expect(try pair.a.send("POST", "/stores/p/actions", body: Self.increase).status == 200)
        #expect(try pair.b.send("GET", "/stores/p/state").status == 200)
        #expect(try pair.b.send("GET", "/stores/q/state").status == 200)
        #expect(try !pair.b.follows("p"))

        let connection = try PostgresConnection(conninfo: pair.postgres.conninfo)
        defer { connection.close() }
        let registered = try connection.execute("SELECT snapshot_version FROM remvvm_replicas WHERE store = 'p' AND name = 'b'")
        #expect(registered.rows == [["1"]], "unloading registered its snapshot")
        let dated = try connection.execute(
            "UPDATE remvvm_replicas SET registered_at = now() - interval '2 hours' WHERE name = 'b' AND store <> 'default' RETURNING store"
        )
        #expect(Set(dated.rows.compactMap { $0.first ?? nil }) == ["p", "q"])
        #expect(waitUntil(timeout: .seconds(30)) {
            let fresh = try? connection.execute(
                "SELECT snapshot_version FROM remvvm_replicas WHERE name = 'b' AND store = 'p' AND registered_at > now() - interval '1 minute'"
            )
            return fresh?.rows == [["1"]]
        }, "renewed with the snapshot it had registered")
    }
}
