import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
@testable import ReMVVMServer
@testable import SQLiteJournal
import Testing

/// A store's load reads what it replays — its snapshot and the records after it —, not its older
/// history (`docs/journal.md`, "Checksums"): damage there does not keep the store from loading,
/// and `GET /stores/{id}/actions` shows it where it is read — a damaged record marked, versions
/// missing answered with a 503 that names them, never skipped over.
@Suite struct StoreLoadHistoryTests {
    /// Store `a` with 10 increases, unloaded (its snapshot of version 10 written), then `damage`
    /// done to its rows in the file by hand (SQL, `?` the store's key), if any.
    private func unloadedStore(damage: String? = nil) throws -> StoresJournalTests.JournalStores {
        let server = try StoresJournalTests.JournalStores(idleSeconds: 60)
        #expect(server.send("PUT", "/stores/a").status == 201)
        let batch = "[" + Array(repeating: #"{"type":"increase"}"#, count: 10).joined(separator: ",") + "]"
        #expect(server.send("POST", "/stores/a/actions", body: batch).body == #"{"version":10}"#)
        server.clock.advance(seconds: 61)
        #expect(server.server.service.unloadIdleStores() == 1)
        try server.file.foldLog()
        let key = "(SELECT key FROM stores WHERE id = 'a')"
        if let damage {
            try SQLiteDatabase(path: server.file.path, create: false).execute(damage.replacingOccurrences(of: "?", with: key))
        }
        return server
    }

    @Test func aDamagedRecordOfHistoryIsShownMarkedAndTheStoreLoads() throws {
        let server = try unloadedStore(damage: "UPDATE actions SET payload = CAST('{\"x\":1}' AS BLOB) WHERE store = ? AND version = 3")
        #expect(server.send("GET", "/stores/a/state").body == #"{"counter":10,"user":null}"#)
        let page = server.send("GET", "/stores/a/actions?limit=4")
        #expect(page.status == 200)
        #expect(page.body.contains(#"{"version":3,"type":"increase","payload":null,"damaged":"it does not match its checksum"#), "\(page.body)")
        #expect(server.send("POST", "/stores/a/actions", body: #"{"type":"increase"}"#).body == #"{"version":11}"#)
    }

    @Test func versionsMissingFromHistoryAreNamedWithA503NeverSkipped() throws {
        let server = try unloadedStore(damage: "DELETE FROM actions WHERE store = ? AND version IN (4, 5)")
        #expect(server.send("GET", "/stores/a/state").body == #"{"counter":10,"user":null}"#)
        for target in ["/stores/a/actions", "/stores/a/actions?since=3"] {
            let page = server.send("GET", target)
            #expect(page.status == 503, "\(target): \(page.body)")
            #expect(page.body.contains("versions 4...5 are missing, the journal is damaged there"), "\(target): \(page.body)")
        }
        let before = server.send("GET", "/stores/a/actions?limit=3")
        #expect(before.status == 200 && before.body.contains(#""version":3"#), "the versions before the gap are shown")
        let after = server.send("GET", "/stores/a/actions?since=5")
        #expect(after.status == 200 && after.body.contains(#"{"version":6,"#) && after.body.contains(#"{"version":10,"#))
    }

    @Test func aDamagedRecordTheLoadReplaysFailsThatStoresLoadOnly() throws {
        let server = try unloadedStore()
        #expect(server.send("GET", "/stores/a/state").status == 200)
        #expect(server.send("POST", "/stores/a/actions", body: #"[{"type":"increase"},{"type":"increase"}]"#).body == #"{"version":12}"#)
        server.clock.advance(seconds: 61)
        #expect(server.server.service.unloadIdleStores() == 1)
        try server.file.foldLog()
        // The newest snapshot (12) gone, the load starts from the one of 10 and replays 11 and 12.
        let key = "(SELECT key FROM stores WHERE id = 'a')"
        try SQLiteDatabase(path: server.file.path, create: false).execute("""
            DELETE FROM snapshots WHERE store = \(key) AND version = 12;
            UPDATE actions SET payload = CAST('{"x":1}' AS BLOB) WHERE store = \(key) AND version = 11
            """)
        let load = server.send("GET", "/stores/a/state")
        #expect(load.status == 503 && load.body.contains("store-unavailable"), "\(load.body)")
        #expect(load.body.contains("version 11 of store a does not match its checksum"), "\(load.body)")
        #expect(server.send("GET", "/state").status == 200, "the other stores are served")
    }

    @Test func aGapIsFoundWhereverThePageStartsOrEnds() {
        func records(_ versions: [UInt64]) -> [JournalRecord] {
            versions.map { JournalRecord(version: $0, type: "t", payload: [], time: 0) }
        }
        typealias Service = ReMVVMService<AppState>
        #expect(Service.firstGap(in: records([1, 2, 3]), after: 0, earliest: 1) == nil)
        #expect(Service.firstGap(in: records([8, 9]), after: 0, earliest: 8) == nil, "retention removed 1...7")
        #expect(Service.firstGap(in: records([8, 9]), after: 3, earliest: 8) == nil)
        #expect(Service.firstGap(in: records([]), after: 3, earliest: nil) == nil)
        #expect(Service.firstGap(in: records([5, 6]), after: 3, earliest: 1) == "versions 4...4 are missing")
        #expect(Service.firstGap(in: records([4, 7]), after: 3, earliest: 1) == "versions 5...6 are missing")
        #expect(Service.firstGap(in: records([4, 4]), after: 3, earliest: 1) == "version 4 is out of order after version 4")
        #expect(Service.firstGap(in: records([9]), after: 3, earliest: 8) == "versions 8...8 are missing")
        #expect(Service.firstGap(in: records([]), after: .max, earliest: 1) == nil)
    }
}
