import ExampleApp
import Foundation
import ReMVVM
@testable import ReMVVMServer
import Testing

/// ``RecentActions``, the action log of a store without a journal, under its shared bound: stores
/// dispatching at once on threads of their own, joining the budget and cutting each other's logs.
@Suite struct RecentActionsTests {
    @Test func concurrentStoresStayUnderTwiceTheBudgetAndEachKeepsItsNewestInOrder() throws {
        let budget = SharedBudget(total: 600)
        let codec = ActionJournalCodec(registry: ExampleApp.actions)
        let stores = try (0..<8).map { _ in try Store.example() }
        let logs = stores.map { RecentActions(store: $0, codec: codec, budget: budget, capacity: 500) }
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            for _ in 0..<1_500 {
                _ = stores[index].dispatchAndWait(action: Increase())
            }
        }
        #expect(budget.count == stores.count)
        var kept = 0
        for log in logs {
            let (records, earliest) = log.records(after: 0, limit: 1_000)
            let versions = records.map(\.version)
            #expect(versions.last == 1_500, "the newest action is kept")
            #expect(versions == Array((earliest ?? 0)...1_500), "a run of the newest, oldest first")
            #expect(records.allSatisfy { $0.type == "increase" })
            kept += records.count
        }
        // Each log is cut to its share (600 / 8 = 75) at its next action; a log that stopped
        // before the last ones joined may hold a larger share until the next pass.
        #expect(kept <= 2 * budget.total, "\(kept) actions kept")
        for log in logs {
            log.stop()
        }
        #expect(budget.count == 0)
    }
}
