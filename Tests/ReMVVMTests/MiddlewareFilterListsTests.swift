import ConcurrencyKit
import ExampleApp
@testable import ReMVVM
import Testing

/// Stores with the same middleware filters share one list of them (what a store reads to pass an
/// action over its middleware), and a middleware is asked only when its filter says to ask.
@Suite struct MiddlewareFilterListsTests {
    /// The address of a list's elements: equal for two lists that share one buffer.
    private func address(_ filters: [MiddlewareActionFilter]) -> UnsafeRawPointer? {
        filters.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func storesOfOneDomainShareTheirFilters() throws {
        let first = try ExampleApp.store()
        let second = try ExampleApp.store()
        #expect(first.middleware.filters.count == 2)
        #expect(first.middleware.filters == second.middleware.filters)
        #expect(address(first.middleware.filters) == address(second.middleware.filters))
        #expect(
            first.middleware.items.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
                != second.middleware.items.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
            "each store keeps middleware of its own"
        )
    }

    @Test func equalListsAreOneAndOthersStayApart() {
        let lists = MiddlewareFilterLists(capacity: 8)
        let exact = MiddlewareActionFilter.exactType(ObjectIdentifier(Increase.self))
        let kept = lists.list([exact, .asked])
        #expect(address(lists.list([exact, .asked])) == address(kept))
        let other = lists.list([.asked, exact])
        #expect(other == [.asked, exact])
        #expect(address(other) != address(kept))
        #expect(lists.list([]).isEmpty)
    }

    @Test func beyondItsCapacityAListStaysItsOwn() {
        let lists = MiddlewareFilterLists(capacity: 2)
        let first = lists.list([.asked])
        let second = lists.list([.everyAction])
        #expect(address(lists.list([.asked])) == address(first))
        #expect(address(lists.list([.everyAction])) == address(second))
        let third = lists.list([.asked, .asked])
        #expect(third == [.asked, .asked])
        #expect(address(lists.list([.asked, .asked])) != address(third), "not kept: the capacity is reached")
    }

    @Test func aMiddlewareIsAskedOnlyWhenItsFilterAsks() {
        let asked = Lock(0)
        let handles: (any StoreAction) -> Bool = { action in
            asked.withLock { $0 += 1 }
            return action is Increase
        }
        #expect(MiddlewareActionFilter.everyAction.admits(Decrease(), handledBy: handles))
        #expect(MiddlewareActionFilter.exactType(ObjectIdentifier(Increase.self)).admits(Increase(), handledBy: handles))
        #expect(!MiddlewareActionFilter.exactType(ObjectIdentifier(Increase.self)).admits(Decrease(), handledBy: handles))
        #expect(asked.withLock { $0 } == 0)
        #expect(MiddlewareActionFilter.asked.admits(Increase(), handledBy: handles))
        #expect(!MiddlewareActionFilter.asked.admits(Decrease(), handledBy: handles))
        #expect(asked.withLock { $0 } == 2)
    }
}
