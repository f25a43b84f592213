import ConcurrencyKit

/// What ``Store/propose(_:late:)`` found: the actions middleware let through to where the
/// reducer would run, in order, and why it stopped early, if it did.
public struct Proposal: Sendable {
    /// The actions that reached the reducer's place, in order (middleware may have replaced,
    /// added or stopped some): what a shared log is to order and every replica to reduce.
    public var actions: [any StoreAction]
    /// What the store's reduce check made of each of ``actions`` on the way (the same index), or
    /// nil (``Store/addReduceCheck(handingOn:)``): a shared log takes a journal encoding from here
    /// instead of making it again.
    public var receipts: [ReduceCheckReceipt?] = []
    /// A middleware refused the action at `index` with ``Interceptor/reject(reason:)``; later
    /// actions of the batch were not proposed, the ones in ``actions`` were.
    public var rejection: (reason: String, index: Int)?
    /// A reduce check (``Store/addReduceCheck(_:)``) refused the action at `index` (or one it led
    /// to); later actions of the batch were not proposed.
    public var refusal: (reason: String, index: Int)?
    /// Whether middleware ended every action with ``Interceptor/leaveUnchanged()``: nothing to
    /// order, and nothing would change.
    public var isUnchanged = false
}

/// Where the terminal step of a dispatch goes: the reducer (a plain dispatch), or a proposal's
/// collector (nothing is reduced; the store's state and version stay as they are).
enum Terminal<State: StoreState>: Sendable {
    case reduce
    case propose(ProposalCollector<State>)
}

extension Store {
    /// Runs `actions` through the middleware, with the store to itself as ``dispatchAndWait(_:)``
    /// does, but **reduces nothing**: each action that reaches the reducer's place is collected
    /// instead, for a shared log that orders them (several replicas of one store: middleware
    /// runs once, on the replica that received the request; every replica then reduces the
    /// logged actions with ``replay(_:)``).
    ///
    /// Middleware sees a *speculative* state: the store's current state with the actions
    /// collected so far reduced onto it (what the state will be if no other replica's action
    /// comes in between; a decision that must hold against other replicas needs a condition
    /// checked where the log assigns versions, such as `If-Match`). Nested dispatches from
    /// middleware are proposed too. `next` completions run with the speculative state after
    /// their action. Observers are not called: nothing is reduced here.
    ///
    /// - Parameter actions: the actions to run through the middleware, in order.
    /// - Parameter late: receives, on the calling thread of `next`, each action that reaches the
    ///   reducer's place after this returned (asynchronous middleware calling `next` later).
    public func propose(
        _ actions: [any StoreAction],
        late: @escaping @Sendable (any StoreAction) -> Void
    ) -> Proposal {
        processor.runAndWait {
            let collector = ProposalCollector(state: self.state, reduce: { self.reduce($0, with: $1) }, late: late)
            var proposal = Proposal(actions: [])
            var everyActionLeftUnchanged = !actions.isEmpty
            for (index, action) in actions.enumerated() {
                let context = DispatchContext()
                defer { everyActionLeftUnchanged = everyActionLeftUnchanged && context.leftUnchanged }
                self.process(action, from: 0, context: context, completions: nil, terminal: .propose(collector))
                if let reason = context.refusal {
                    proposal.refusal = (reason, index)
                    break
                }
                if let reason = context.rejection {
                    proposal.rejection = (reason, index)
                    break
                }
            }
            (proposal.actions, proposal.receipts) = collector.close()
            proposal.isUnchanged = everyActionLeftUnchanged && proposal.actions.isEmpty
            return proposal
        }
    }
}

/// Collects the actions of one ``Store/propose(_:late:)`` and keeps the speculative state they
/// make; after ``close()`` hands later ones to `late`.
final class ProposalCollector<State: StoreState>: Sendable {
    private struct Collected {
        var state: State
        var actions: [any StoreAction] = []
        var receipts: [ReduceCheckReceipt?] = []
        var closed = false
    }

    private let collected: Lock<Collected>
    private let reduce: @Sendable (State, any StoreAction) -> State
    private let late: @Sendable (any StoreAction) -> Void

    init(
        state: State,
        reduce: @escaping @Sendable (State, any StoreAction) -> State,
        late: @escaping @Sendable (any StoreAction) -> Void
    ) {
        collected = Lock(Collected(state: state))
        self.reduce = reduce
        self.late = late
    }

    /// The speculative state: the store's state with every collected action reduced onto it.
    var state: State {
        collected.withLock { $0.state }
    }

    /// Collects `action`, with what the reduce check made of it (or hands it to `late` after
    /// ``close()``), and returns the speculative state after it.
    func collect(_ action: any StoreAction, receipt: ReduceCheckReceipt?) -> State {
        let (state, isLate) = collected.withLock { collected -> (State, Bool) in
            collected.state = reduce(collected.state, action)
            if !collected.closed {
                collected.actions.append(action)
                collected.receipts.append(receipt)
            }
            return (collected.state, collected.closed)
        }
        if isLate { late(action) }
        return state
    }

    /// Ends the proposal: returns what was collected, with the receipts; later actions go to `late`.
    func close() -> ([any StoreAction], [ReduceCheckReceipt?]) {
        collected.withLock { collected in
            collected.closed = true
            return (collected.actions, collected.receipts)
        }
    }
}

/// The dispatcher middleware gets while proposing: a nested dispatch is proposed too.
struct ProposingDispatcher<State: StoreState>: Dispatcher {
    let store: Store<State>
    let collector: ProposalCollector<State>

    func dispatch(action: any StoreAction) {
        let context = DispatchContext()
        store.processor.run {
            store.process(action, from: 0, context: context, completions: nil, terminal: .propose(collector))
        }
    }
}
