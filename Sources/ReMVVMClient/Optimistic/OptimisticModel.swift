import Foundation
import ReMVVM

/// An action dispatched locally, until the server's state holds it.
struct PendingAction: Sendable {
    let id = UUID()
    let action: any StoreAction & Encodable
    /// Taken by the sender.
    var inFlight = false
    /// The `Idempotency-Key` of the batch it was sent in: a batch whose send was interrupted
    /// (``OptimisticStore/stop()``) goes again with its key, so the server applies it once.
    var key: String?
    /// The version the server answered its batch with; the action is confirmed once the server's
    /// state reaches it.
    var answeredVersion: UInt64?
}

/// Actions the sender sends together, in order.
struct PendingBatch: Sendable {
    let ids: [UUID]
    let actions: [any StoreAction & Encodable]
    /// Its `Idempotency-Key`, the same for every send of it.
    let key: String
}

/// What an ``OptimisticStore`` knows, kept under its lock: the server's state, the actions not
/// confirmed yet, and the state to show.
struct OptimisticModel<State: Sendable>: Sendable {
    /// The state to show: ``confirmed`` (or the initial state) with ``pending`` reduced on top.
    var local: State
    var confirmed: State?
    var confirmedVersion: UInt64?
    var pending: [PendingAction] = []
    var observers: [UUID: AsyncStream<State>.Continuation] = [:]
    /// The sender, while it waits for actions.
    var sender: CheckedContinuation<Void, Never>?

    init(local: State) {
        self.local = local
    }

    var hasUnsent: Bool {
        pending.contains { !$0.inFlight }
    }

    /// Nothing pending, and a confirmed state to show.
    var isSettled: Bool {
        pending.isEmpty && confirmedVersion != nil
    }

    /// Wakes the sender if it waits.
    mutating func wakeSender() {
        sender?.resume()
        sender = nil
    }

    /// The next batch, marked in flight: a batch whose send was interrupted, as it was (the
    /// same actions and key: the server may have applied it), else every action not sent yet,
    /// with a key from `drawKey`; nil when there is none.
    mutating func takeUnsent(drawKey: () -> String) -> PendingBatch? {
        let interrupted = pending.first { !$0.inFlight && $0.key != nil }?.key
        let key = interrupted ?? drawKey()
        var ids: [UUID] = []
        var actions: [any StoreAction & Encodable] = []
        for index in pending.indices where !pending[index].inFlight && pending[index].key == interrupted {
            pending[index].inFlight = true
            pending[index].key = key
            ids.append(pending[index].id)
            actions.append(pending[index].action)
        }
        return ids.isEmpty ? nil : PendingBatch(ids: ids, actions: actions, key: key)
    }

    /// The batch `ids` was not answered (the sender stopped): it waits to be sent again, with
    /// its key.
    mutating func interrupted(_ ids: [UUID]) {
        let batch = Set(ids)
        for index in pending.indices where batch.contains(pending[index].id) && pending[index].answeredVersion == nil {
            pending[index].inFlight = false
        }
    }

    /// A server version: it becomes the confirmed state; the actions it holds leave the queue. A
    /// reset (the server lost track of where this client was) also drops every answered action:
    /// whether its version survived is unknown, and the server's state is the truth.
    mutating func confirm(_ update: StateUpdate<State>, reduce: (State, any StoreAction) -> State) {
        confirmed = update.state
        confirmedVersion = update.version
        pending.removeAll { action in
            guard let answered = action.answeredVersion else { return false }
            return update.isReset || answered <= update.version
        }
        rebase(reduce: reduce)
    }

    /// The answer to the batch `ids`: its version (nil for `202` or a refusal, which leave the
    /// queue at once).
    mutating func answered(_ ids: [UUID], version: UInt64?, reduce: (State, any StoreAction) -> State) {
        let batch = Set(ids)
        if let version, confirmedVersion.map({ version > $0 }) ?? true {
            for index in pending.indices where batch.contains(pending[index].id) {
                pending[index].answeredVersion = version
            }
        } else {
            pending.removeAll { batch.contains($0.id) }  // refused, accepted, or already confirmed
            rebase(reduce: reduce)
        }
    }

    /// ``local`` again: the confirmed state with every pending action reduced on top.
    private mutating func rebase(reduce: (State, any StoreAction) -> State) {
        guard let confirmed else { return }
        local = pending.reduce(confirmed) { reduce($0, $1.action) }
    }
}
