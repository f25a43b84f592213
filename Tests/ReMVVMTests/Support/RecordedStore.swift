import ExampleApp
import ReMVVM

/// The example store watched by one ``CounterLogObserver`` per name, its middleware and observers
/// logging into one ``Recorder``; the observers' first call (made when they are added) is cleared,
/// so the log starts with the next dispatch.
struct RecordedStore {
    let recorder: Recorder
    let store: Store<AppState>
    /// Held here: the store keeps its observers weakly.
    let observers: [CounterLogObserver]

    /// The store with the middleware `middleware` makes from the shared recorder.
    init(
        state: AppState = AppState(),
        observers names: [String],
        middleware: (Recorder) -> [any AnyMiddleware] = { _ in [] }
    ) throws {
        let recorder = Recorder()
        let store = try Store.example(state: state, middleware: middleware(recorder))
        let observers = names.map { CounterLogObserver(name: $0, recorder: recorder) }
        for observer in observers { store.add(observer: observer) }
        recorder.clear()
        self.recorder = recorder
        self.store = store
        self.observers = observers
    }

    /// The store with one ``RecordingMiddleware`` per name in `recording`, in that order.
    init(recording: [String], observers names: [String]) throws {
        try self.init(observers: names) { recorder in
            recording.map { RecordingMiddleware(name: $0, recorder: recorder) }
        }
    }

    /// What happened since the observers were added.
    var log: [String] { recorder.log }
}
