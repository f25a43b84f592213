import ConcurrencyKit
import DequeModule
import Journal
import Logging
import ReMVVM

/// Holds each reduce back until the journal made it durable: queues the store's publications,
/// appends their records to the journal, and passes them on (to the event hub, to `GET /state`)
/// once a commit covers them. Nothing can see version N before N is durable.
final class CommitGate<State: StoreState>: StatePublisher {
    private struct Gate {
        var awaiting: Deque<StatePublication<State>> = []
        var committed: StoreSnapshot<State>
        var handlers: [@Sendable (StatePublication<State>) -> Void] = []
    }

    private let gate: Lock<Gate>
    /// The journal's versions, rebuilt for event streams that resume beyond the event hub's ring.
    let history: (any VersionHistory<State>)?

    /// Starts at the store's current (restored, hence durable) state.
    init(
        store: Store<State>,
        journal: GroupCommitJournal,
        codec: ActionJournalCodec,
        history: (any VersionHistory<State>)?,
        logger: Logger
    ) {
        gate = Lock(Gate(committed: store.snapshot))
        self.history = history
        journal.onDurable { [gate] version in
            let (released, handlers) = gate.withLock { gate -> ([StatePublication<State>], [@Sendable (StatePublication<State>) -> Void]) in
                var released: [StatePublication<State>] = []
                while let first = gate.awaiting.first, first.version <= version {
                    released.append(gate.awaiting.removeFirst())
                }
                if let last = released.last {
                    gate.committed = StoreSnapshot(version: last.version, state: last.state)
                }
                return (released, gate.handlers)
            }
            for publication in released {
                for handler in handlers {
                    handler(publication)
                }
            }
        }
        store.addPublicationHandler { [gate] publication in
            guard let record = codec.record(for: publication, time: ActionJournalCodec.now()) else {
                // The store's reduce check refuses such actions; one that got through anyway
                // cannot be journaled, and the journal refuses the gap it leaves.
                logger.critical("version \(publication.version) was reduced but cannot be journaled: \(type(of: publication.action)) has no wire name")
                return
            }
            gate.withLock { $0.awaiting.append(publication) }
            journal.append(record)
        }
    }

    var snapshot: StoreSnapshot<State> {
        gate.withLock { $0.committed }
    }

    /// Drops the publication handlers once the journal has stopped: nothing is released after,
    /// and a handler (a hub's) may hold what holds this gate, which would otherwise never be freed.
    func close() {
        gate.withLock { $0.handlers = [] }
    }

    @discardableResult
    func addPublicationHandler(_ handler: @escaping @Sendable (StatePublication<State>) -> Void) -> StoreSnapshot<State> {
        gate.withLock { gate in
            gate.handlers.append(handler)
            return gate.committed
        }
    }
}
