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

/// ``Store/addReduceCheck(handingOn:)``: what a check made of an action reaches the reduce's
/// publication, from the check that made it.
@Suite struct ReduceCheckReceiptTests {
    private final class Issuer: Sendable {}

    @Test func aReceiptReachesThePublicationOfItsReduceOnly() throws {
        let store = try Store.example()
        let issuer = Issuer()
        store.addReduceCheck(handingOn: { action in
            action is Increase ? .admitHandingOn(ReduceCheckReceipt(issuer: ObjectIdentifier(issuer), bytes: [1, 2])) : .admit
        })
        let receipts = Lock<[ReduceCheckReceipt?]>([])
        store.addPublicationHandler { publication in receipts.withLock { $0.append(publication.receipt) } }

        #expect(store.dispatchAndWait([Increase(), Decrease()]) == .reduced(version: 2))
        #expect(receipts.withLock { $0 } == [ReduceCheckReceipt(issuer: ObjectIdentifier(issuer), bytes: [1, 2]), nil])
    }

    @Test func theFirstRefusalRefusesAndTheLastReceiptIsKept() throws {
        let store = try Store.example()
        let first = Issuer()
        let second = Issuer()
        store.addReduceCheck(handingOn: { action in
            action is Logout ? .refuse("first refuses") : .admitHandingOn(ReduceCheckReceipt(issuer: ObjectIdentifier(first), bytes: [1]))
        })
        store.addReduceCheck { _ in nil }
        store.addReduceCheck(handingOn: { action in
            action is Decrease ? .admitHandingOn(ReduceCheckReceipt(issuer: ObjectIdentifier(second), bytes: [2])) : .admit
        })
        let receipts = Lock<[ReduceCheckReceipt?]>([])
        store.addPublicationHandler { publication in receipts.withLock { $0.append(publication.receipt) } }

        #expect(store.dispatchAndWait([Increase(), Decrease()]) == .reduced(version: 2))
        #expect(receipts.withLock { $0 } == [
            ReduceCheckReceipt(issuer: ObjectIdentifier(first), bytes: [1]),
            ReduceCheckReceipt(issuer: ObjectIdentifier(second), bytes: [2]),
        ], "a check that admits without a receipt keeps an earlier one; a later receipt replaces it")
        #expect(store.dispatchAndWait([Logout()]) == .refused(reason: "first refuses", index: 0))
        #expect(store.version == 2)
    }

    /// A proposal (a replica's dispatch: nothing reduced) keeps each collected action's receipt
    /// at the action's index, for the shared log's record.
    @Test func aProposalKeepsEachActionsReceipt() throws {
        let store = try Store.example()
        let issuer = Issuer()
        store.addReduceCheck(handingOn: { action in
            action is Decrease ? .admitHandingOn(ReduceCheckReceipt(issuer: ObjectIdentifier(issuer), bytes: [9])) : .admit
        })
        let proposal = store.propose([Increase(), Decrease(), Increase()], late: { _ in })

        #expect(proposal.actions.count == 3)
        #expect(proposal.receipts == [nil, ReduceCheckReceipt(issuer: ObjectIdentifier(issuer), bytes: [9]), nil])
        #expect(store.version == 0, "nothing was reduced")
    }
}
