import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// Views of one store each (``PostgresSharedLog/view(of:)``) over one follower per process: every
/// record reaches the view of its store, in order, from the version that view resumed at; a
/// store not followed is not read; a store deleted while followed stops, saying so.
@Suite struct PostgresStoreViewsTests {
    private static let stores = (0..<5).map { StoreID.make("room-\($0)") }

    /// Submits a one-action group to `view` and waits for its outcome.
    private static func append(_ view: PostgresStoreLog, _ type: String) throws -> ClosedRange<UInt64> {
        let outcome = Mailbox<Result<LogGroupOutcome, JournalError>>()
        view.submit(LogGroup(actions: [LoggedAction(type: type, payload: [], time: 1)])) { outcome.post($0) }
        guard case .success(.appended(let range))? = outcome.next(timeout: .seconds(30)) else {
            throw JournalError(code: .writeFailed, message: "\(type) not appended to \(view.store)")
        }
        return range
    }

    @Test func everyStoresRecordsReachItsOwnViewFromTheVersionItResumedAt() throws {
        let server = try PostgresServer()
        let writer = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { writer.stop() }
        let reader = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { reader.stop() }
        for store in Self.stores { _ = try writer.create(store, limit: 100, at: 1) }
        let applied = Lock<[StoreID: [String]]>([:])
        func follow(_ store: StoreID, from version: UInt64) throws {
            try reader.view(of: store).start(applied: version) { page in
                applied.withLock { $0[store, default: []] += page.map { "\($0.record.version):\($0.record.type)" } }
            }
        }
        // room-0, room-1 from the start, room-2 resuming after its version 2; room-3 and room-4 not yet.
        try follow(Self.stores[0], from: 0)
        try follow(Self.stores[1], from: 0)
        try follow(Self.stores[2], from: 2)
        let writers = Self.stores.map(writer.view(of:))
        try writers[0].start(applied: 0) { _ in }
        for round in 1...3 {
            for (index, view) in writers.enumerated() {
                let version = UInt64(round)
                #expect(try Self.append(view, "r\(index)-\(round)") == version...version)
            }
        }
        for store in Self.stores[0...2] {
            #expect(reader.view(of: store).waitUntilApplied(3, timeout: .seconds(30)))
        }
        try follow(Self.stores[3], from: 0)
        #expect(reader.view(of: Self.stores[3]).waitUntilApplied(3, timeout: .seconds(30)))
        #expect(applied.withLock { $0 } == [
            Self.stores[0]: ["1:r0-1", "2:r0-2", "3:r0-3"],
            Self.stores[1]: ["1:r1-1", "2:r1-2", "3:r1-3"],
            Self.stores[2]: ["3:r2-3"],
            Self.stores[3]: ["1:r3-1", "2:r3-2", "3:r3-3"],
        ], "room-4, never followed, was never read")
        #expect(reader.view(of: Self.stores[4]).applied == 0)
        #expect(waitUntil(timeout: .seconds(10)) { reader.view(of: Self.stores[1]).status == .following })
        // The writer's own view applied its store's appends (offered, read your own writes).
        #expect(writers[0].waitUntilApplied(3, timeout: .seconds(30)))
    }

    @Test func aViewStoppedLeavesTheOtherStoresFollowed() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { log.stop() }
        for store in Self.stores[0...1] { _ = try log.create(store, limit: 100, at: 1) }
        let first = log.view(of: Self.stores[0]), second = log.view(of: Self.stores[1])
        try first.start(applied: 0) { _ in }
        try second.start(applied: 0) { _ in }
        #expect(try Self.append(first, "a") == 1...1)
        #expect(first.waitUntilApplied(1, timeout: .seconds(30)))
        first.stop()
        #expect(first.status == .stopped(nil))
        #expect(try Self.append(second, "b") == 1...1)
        #expect(second.waitUntilApplied(1, timeout: .seconds(30)))
        #expect(try Self.append(first, "c") == 2...2, "appends to an unloaded store still go to the log")
        #expect(first.waitUntilApplied(2, timeout: .milliseconds(100)) == false)
    }

    @Test func aFollowedStoreThatIsDeletedStopsSayingSo() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { log.stop() }
        _ = try log.create(Self.stores[0], limit: 100, at: 1)
        let view = log.view(of: Self.stores[0])
        try view.start(applied: 0) { _ in }
        #expect(waitUntil(timeout: .seconds(10)) { view.status == .following })
        // Another process deletes the store.
        let other = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { other.stop() }
        #expect(try other.delete(Self.stores[0]))
        #expect(waitUntil(timeout: .seconds(10)) {
            if case .stopped(let reason?) = view.status { reason.contains("deleted") } else { false }
        }, "status: \(view.status)")
        #expect(log.status == .following || log.status == .catchingUp, "the store default goes on")
    }
}
