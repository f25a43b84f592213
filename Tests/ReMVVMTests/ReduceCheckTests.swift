import ConcurrencyKit
import ExampleApp
import ReMVVM
import Testing

/// ``Store/addReduceCheck(_:)`` with several checks, and stores that share a reducer type (one
/// reduce closure for all of them) keeping their states apart.
@Suite struct ReduceCheckTests {
    @Test func checksRunInTheOrderAddedAndTheFirstReasonRefuses() throws {
        let store = try Store.example()
        let asked = Lock<[String]>([])
        store.addReduceCheck { action in
            asked.withLock { $0.append("first") }
            return action is Decrease ? "first refuses" : nil
        }
        store.addReduceCheck { action in
            asked.withLock { $0.append("second") }
            return action is Logout ? "second refuses" : nil
        }

        #expect(store.dispatchAndWait([Increase()]) == .reduced(version: 1))
        #expect(asked.withLock { $0 } == ["first", "second"], "an action both pass is asked of both, in order")

        asked.withLock { $0 = [] }
        let refused = store.dispatchAndWait([Increase(), Decrease()])
        #expect(refused == .refused(reason: "first refuses", index: 1))
        #expect(asked.withLock { $0 } == ["first", "second", "first"], "the second is not asked once the first refused")

        #expect(store.dispatchAndWait([Logout()]) == .refused(reason: "second refuses", index: 0))
        #expect(store.version == 2, "only the actions before the refused one were reduced")
        #expect(store.state.counter == 2)
    }

    @Test func storesOfOneReducerTypeKeepTheirOwnStates() throws {
        let first = try Store.example()
        let second = try Store.example()

        #expect(first.dispatchAndWait([Increase(), Increase(), Increase()]) == .reduced(version: 3))
        #expect(second.dispatchAndWait([Decrease()]) == .reduced(version: 1))

        #expect(first.state.counter == 3 && first.version == 3)
        #expect(second.state.counter == -1 && second.version == 1)
    }
}
