import ExampleApp
import Journal
import ReMVVM
@testable import ReMVVMServer
import Testing

/// The state at a version, rebuilt from a base and the records after it
/// (``VersionHistory/state(atVersion:)``): every version in turn, or none when one is missing.
@Suite struct VersionHistoryTests {
    /// A history from the initial state, its records those of `kept`; an action adds one.
    struct ListedHistory: VersionHistory {
        let kept: [UInt64]

        func base(forVersionsAfter version: UInt64) -> StoreSnapshot<AppState>? {
            StoreSnapshot(version: 0, state: AppState())
        }

        func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
            kept.filter { $0 > version }.prefix(limit).map { JournalRecord(version: $0, type: "increase", payload: [], time: 0) }
        }

        func reduce(_ state: AppState, with record: JournalRecord) throws -> AppState {
            AppState(counter: state.counter + 1)
        }
    }

    @Test func everyVersionUpToTheOneAskedIsApplied() throws {
        #expect(try ListedHistory(kept: Array(1...3_000)).state(atVersion: 2_500)?.counter == 2_500, "pages of 1,024")
    }

    @Test func aVersionMissingInsideAPageIsNeverSkippedOver() throws {
        #expect(try ListedHistory(kept: [1, 2, 4, 5, 6]).state(atVersion: 5) == nil)
        #expect(try ListedHistory(kept: [1, 2, 3, 4, 5, 7]).state(atVersion: 7) == nil, "missing at a page's start")
        #expect(try ListedHistory(kept: [1, 2]).state(atVersion: 5) == nil, "missing at the end")
    }
}
