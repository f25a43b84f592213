import ConcurrencyKit
import Foundation
public import ReMVVM

/// A local copy of the store that applies the app's own reducers at once and catches up with the
/// server (optimistic dispatch, as Replicache and Logux do), so a UI never waits for the network.
///
/// - ``dispatch(_:)`` reduces the action locally right away and queues it. A sender sends the
///   queue in order, as batches (each with one `Idempotency-Key`, retried until the server
///   answers: exactly once, also across server restarts), and learns each batch's version.
/// - The server's state stream (with deltas) gives the confirmed state. On every server version
///   the store rebases: ``state`` is the confirmed state with the actions still pending reduced on
///   top of it. An action leaves the queue once the confirmed version reaches the version its
///   batch was answered with; from then on the server's state (with whatever other clients and
///   the server's middleware did) holds it.
/// - Once nothing is pending, ``state`` is the server's state as it sent it.
///
/// Between the server applying a batch and its answer arriving, a version that already holds the
/// batch may come in on the stream while the batch is still pending: ``state`` then shows its
/// actions twice until the answer arrives (tens of milliseconds). A batch the server refuses
/// (`4xx`: rejected by middleware, a payload it does not decode; a `500` or `501`; an answer that
/// cannot be read) is dropped from the queue and reported to `onError`; the confirmed state shows
/// what the server kept. ``stop()`` during a send leaves the batch pending: ``start()`` sends it
/// again with its key.
public final class OptimisticStore<State: Codable & Sendable>: Sendable {
    /// The reducer the server runs too: the app's root reducer.
    public typealias Reduce = @Sendable (State, any StoreAction) -> State

    /// The client that talks to the server.
    public let client: ReMVVMClient
    let reduce: Reduce
    let onError: @Sendable (ClientError) -> Void
    let model: Lock<OptimisticModel<State>>
    private let tasks = Lock<[Task<Void, Never>]>([])

    /// A store over `client` that shows `initial` until the server's first state arrives, and
    /// reduces with `reduce` (the app's root reducer). Call ``start()`` to connect.
    public init(client: ReMVVMClient, initial: State, reduce: @escaping Reduce, onError: @escaping @Sendable (ClientError) -> Void = { _ in }) {
        self.client = client
        self.reduce = reduce
        self.onError = onError
        model = Lock(OptimisticModel(local: initial))
    }

    /// A store whose reducer is `reducer` (`R.reduce(state:withAny:)`).
    public convenience init<R: Reducer & SendableMetatype>(client: ReMVVMClient, initial: State, reducer: R.Type, onError: @escaping @Sendable (ClientError) -> Void = { _ in })
    where R.State == State {
        self.init(client: client, initial: initial, reduce: { R.reduce(state: $0, withAny: $1) }, onError: onError)
    }

    /// The state to show: the server's latest with the pending actions reduced on top.
    public var state: State {
        model.withLock { $0.local }
    }

    /// The newest server version the state is based on, nil before the first.
    public var confirmedVersion: UInt64? {
        model.withLock { $0.confirmedVersion }
    }

    /// How many dispatched actions the server has not confirmed yet.
    public var pendingCount: Int {
        model.withLock { $0.pending.count }
    }

    /// Opens the state stream and starts the sender; does nothing when already started. They run
    /// (and keep the store alive) until ``stop()``.
    public func start() {
        tasks.withLock { tasks in
            guard tasks.isEmpty else { return }
            tasks = [Task { await self.followServer() }, Task { await self.sendQueued() }]
        }
    }

    /// Stops following the server and sending; what is pending stays pending.
    public func stop() {
        for task in tasks.withLock({ tasks in defer { tasks = [] }; return tasks }) { task.cancel() }
        model.withLock { $0.wakeSender() }
    }

    /// Reduces `action` locally at once and queues it for the server.
    public func dispatch(_ action: any StoreAction & Encodable) {
        let reduce = self.reduce
        let (state, observers) = model.withLock { model in
            model.pending.append(PendingAction(action: action))
            model.local = reduce(model.local, action)
            model.wakeSender()
            return (model.local, model.observers)
        }
        for observer in observers.values { observer.yield(state) }
    }

    /// The state after every change (local dispatches and server versions), starting with the
    /// current one.
    public func updates() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let current = model.withLock { model in
            model.observers[id] = continuation
            return model.local
        }
        continuation.onTermination = { [weak self] _ in
            self?.model.withLock { _ = $0.observers.removeValue(forKey: id) }
        }
        continuation.yield(current)
        return stream
    }

    /// Waits until nothing is pending and the confirmed state holds every answered batch: then
    /// ``state`` is the server's state as of ``confirmedVersion``.
    public func settled() async {
        for await _ in updates() where model.withLock({ $0.isSettled }) {
            return
        }
    }

    /// The state stream's loop: each server version becomes the confirmed state, and the pending
    /// actions are rebased on it.
    private func followServer() async {
        do {
            for try await update in client.states(as: State.self) {
                confirm(update)
            }
        } catch is CancellationError {
            return
        } catch let error as ClientError {
            onError(error)
        } catch {
            onError(ClientError(.network, "the state stream failed: \(error)"))
        }
    }

    private func confirm(_ update: StateUpdate<State>) {
        let reduce = self.reduce
        let (state, observers) = model.withLock { model in
            model.confirm(update, reduce: reduce)
            return (model.local, model.observers)
        }
        for observer in observers.values { observer.yield(state) }
    }
}
