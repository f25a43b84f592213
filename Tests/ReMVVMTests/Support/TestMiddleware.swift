import ConcurrencyKit
import ExampleApp
import ReMVVM

/// Records each action it sees under `name`, passes it on, and records its completion and return.
struct RecordingMiddleware: AnyMiddleware {
    let name: String
    let recorder: Recorder

    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    ) {
        recorder.record("\(name) \(type(of: action))")
        let name = name
        let recorder = recorder
        interceptor.next { _ in recorder.record("\(name) completion") }
        recorder.record("\(name) next returned")
    }
}

/// Never calls `next`: the action stops here.
struct StoppingMiddleware: AnyMiddleware {
    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    ) {}
}

/// Registers a completion for every action that records the state it receives (as `AppState`).
struct CompletionRecordingMiddleware: AnyMiddleware {
    let received: Lock<[AppState]>

    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    ) {
        let received = received
        interceptor.next { state in
            if let state = state as? AppState { received.withLock { $0.append(state) } }
        }
    }
}

/// Keeps every interceptor so the test can call `next` later, from any thread; with
/// `holdingOnly`, the actions of other types pass through as if it called `next` at once.
final class DeferringMiddleware: AnyMiddleware, Sendable {
    private let held = Lock<[@Sendable () -> Void]>([])
    private let heldType: (any StoreAction.Type)?
    let arrived = Signal()

    init(holdingOnly heldType: (any StoreAction.Type)? = nil) {
        self.heldType = heldType
    }

    func handles(_ action: any StoreAction) -> Bool {
        heldType.map { ObjectIdentifier(type(of: action)) == ObjectIdentifier($0) } ?? true
    }

    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    ) {
        held.withLock { $0.append { interceptor.next() } }
        arrived.fire()
    }

    /// Calls `next` on the oldest held interceptor.
    func releaseFirst() {
        let first = held.withLock { held in held.isEmpty ? nil : held.removeFirst() }
        first?()
    }
}

/// Observes the root state and records `will <counter>` / `did <counter> old <counter>` under `name`.
final class CounterLogObserver: StateObserver {
    let name: String
    let recorder: Recorder

    init(name: String, recorder: Recorder) {
        self.name = name
        self.recorder = recorder
    }

    func willReduce(state: AppState) {
        recorder.record("\(name) will \(state.counter)")
    }

    func didReduce(state: AppState, oldState: AppState?) {
        recorder.record("\(name) did \(state.counter) old \(oldState.map { String($0.counter) } ?? "nil")")
    }
}

/// Observes any substate type and keeps every (new, old) pair it receives.
final class SubstateObserver<Observed: Sendable>: StateObserver {
    private(set) var received: [(state: Observed, oldState: Observed?)] = []

    func didReduce(state: Observed, oldState: Observed?) {
        received.append((state, oldState))
    }
}
