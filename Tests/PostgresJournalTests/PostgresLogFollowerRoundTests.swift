import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// The follower's catch-up in rounds over many stores (`PostgresLogFollower+Round`): whatever mix
/// of entries this replica offered and entries other replicas committed, each store applies every
/// version of its own exactly once, in order.
@Suite struct PostgresLogFollowerRoundTests {
    private static let stores = 120

    private func store(_ number: Int) throws -> StoreID { try StoreID("room-\(number)") }

    private func group(_ number: Int) -> LogGroup {
        LogGroup(actions: [LoggedAction(type: "add", payload: Array("{\"by\":\(number)}".utf8), time: Int64(number))])
    }

    private static let a = StoreID.make("room-a"), b = StoreID.make("room-b")

    /// A store whose versions have a gap (its records removed by retention) stops, saying which
    /// version is missing; the follower goes on with every other store.
    @Test func aGapInOneStoreStopsThatStoreAlone() throws {
        let server = try PostgresServer()
        let writer = try PostgresLog(conninfo: server.conninfo)
        defer { writer.close() }
        for store in [Self.a, Self.b] { #expect(try writer.create(store, limit: 10, at: 1) != .limitReached) }
        let follower = PostgresLogFollower(conninfo: server.conninfo, pollInterval: .seconds(30))
        for store in [Self.a, Self.b] { follower.follow(store, applied: 0) { _ in } }
        #expect(follower.start())
        defer { follower.stop() }
        func add(_ count: Int) -> LogGroup {
            LogGroup(actions: (0..<count).map { LoggedAction(type: "add", payload: [], time: Int64($0)) })
        }
        #expect(try writer.append([add(3)], to: Self.a) == [.appended(1...3)])
        #expect(try writer.append([add(3)], to: Self.b) == [.appended(1...3)])
        #expect(follower.waitUntilApplied(3, of: Self.a, timeout: .seconds(10)))
        #expect(follower.waitUntilApplied(3, of: Self.b, timeout: .seconds(10)))
        let remover = try PostgresConnection(conninfo: server.conninfo)
        defer { remover.close() }
        _ = try remover.execute("DELETE FROM remvvm_log WHERE store = 'room-b' AND version = 1")
        // Followed again from the start (a replica loading it without a snapshot): read from the log.
        follower.follow(Self.b, applied: 0) { _ in }
        #expect(waitUntil(timeout: .seconds(10)) {
            if case .stopped(let reason?) = follower.status(of: Self.b) { reason.contains("no version 1") } else { false }
        }, "room-b: \(follower.status(of: Self.b))")
        #expect(follower.status(of: Self.a) == .following)
        #expect(follower.connectionStatus == .following)
        #expect(try writer.append([add(1)], to: Self.a) == [.appended(4...4)])
        #expect(follower.waitUntilApplied(4, of: Self.a, timeout: .seconds(10)))
    }

    @Test func manyStoresWrittenByThisReplicaAndAnotherEachApplyEveryVersionOnceInOrder() throws {
        let server = try PostgresServer()
        let conninfo = server.conninfo
        let log = try PostgresLog(conninfo: conninfo)
        defer { log.close() }
        for number in 0..<Self.stores {
            #expect(try log.create(try store(number), limit: 1_000, at: 1) != .limitReached)
        }
        // Small pages: a store's entries often take several rounds (a full page is looked at again).
        let follower = PostgresLogFollower(conninfo: conninfo, pageSize: 3, pollInterval: .seconds(30))
        let applied = Lock<[StoreID: [UInt64]]>([:])
        for number in 0..<Self.stores {
            let id = try store(number)
            follower.follow(id, applied: 0) { page in
                applied.withLock { $0[id, default: []] += page.map(\.record.version) }
            }
        }
        #expect(follower.start())
        defer { follower.stop() }
        // This replica's appender offers what it committed, every store of an append together.
        let appender = PostgresGroupCommit(conninfo: conninfo) { entries, _ in follower.offer(byStore: entries) }
        #expect(appender.start())
        defer { appender.stop() }
        // Four threads submit to this replica's appender, two append as another replica would, each
        // append spread over several stores; every thread waits for its own outcomes.
        let errors = runOnThreads(6) { thread in
            if thread < 4 {
                for index in 0..<60 {
                    let done = Lock<Result<LogGroupOutcome, PostgresLogError>?>(nil)
                    appender.submit(group(index), to: try store((thread * 37 + index * 11) % Self.stores)) { result in
                        done.withLock { $0 = result }
                        done.notifyAll()
                    }
                    done.withLock(waitingUntil: { $0 != nil }) { _ in }
                    guard case .success(.appended) = done.withLock({ $0 }) else {
                        throw PostgresLogError(code: .queryFailed, message: "group \(index) of thread \(thread) was not appended")
                    }
                }
            } else {
                let other = try PostgresLog(conninfo: conninfo)
                defer { other.close() }
                for index in 0..<30 {
                    let groups = try (0..<7).map { offset in
                        StoreLogGroup(group(index), to: try store((thread * 13 + index * 7 + offset * 17) % Self.stores))
                    }
                    _ = try other.append(groups)
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let heads = try log.heads(of: try (0..<Self.stores).map(store))
        // One deadline for all of them: a store that never gets there fails the test in 20 s.
        let deadline = ContinuousClock.now + .seconds(20)
        for (id, found) in heads {
            let remaining = max(.zero, deadline - ContinuousClock.now)
            #expect(follower.waitUntilApplied(found.head, of: id, timeout: remaining), "\(id) did not reach \(found.head)")
        }
        let seen = applied.withLock { $0 }
        let total: UInt64 = heads.values.reduce(0) { $0 + $1.head }
        #expect(total == 4 * 60 + 2 * 30 * 7)
        for (id, found) in heads {
            let everyVersion: [UInt64] = Array(1...max(1, found.head)).filter { $0 <= found.head }
            #expect(seen[id, default: []] == everyVersion, "\(id)")
        }
    }
}
