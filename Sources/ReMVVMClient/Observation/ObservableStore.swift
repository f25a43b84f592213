#if canImport(Observation)
public import Observation
public import ReMVVM

/// An ``OptimisticStore`` for SwiftUI: its ``state`` is an `@Observable` property on the main actor,
/// so views that read it redraw when it changes.
///
/// ```swift
/// @State private var store = ObservableStore(store: OptimisticStore(
///     client: client, initial: AppState(), reducer: AppReducer.self))
///
/// var body: some View {
///     Button("\(store.state.counter)") { store.dispatch(Increase()) }
///         .task { store.start() }
/// }
/// ```
@MainActor
@Observable
public final class ObservableStore<State: Codable & Sendable> {
    /// The state to show: the server's, with the actions not confirmed yet reduced on top.
    public private(set) var state: State
    /// The server version the state is based on, nil before the first.
    public private(set) var confirmedVersion: UInt64?

    @ObservationIgnored private let store: OptimisticStore<State>
    @ObservationIgnored private var following: Task<Void, Never>?

    /// Shows `store`'s state; ``start()`` connects.
    public init(store: OptimisticStore<State>) {
        self.store = store
        state = store.state
        confirmedVersion = store.confirmedVersion
    }

    /// Connects the store and follows its state; does nothing when already started.
    public func start() {
        guard following == nil else { return }
        store.start()
        let updates = store.updates()
        following = Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                self.state = state
                self.confirmedVersion = self.store.confirmedVersion
            }
        }
    }

    /// Stops following the server (what is pending stays pending).
    public func stop() {
        following?.cancel()
        following = nil
        store.stop()
    }

    /// Reduces `action` locally at once and sends it (see ``OptimisticStore/dispatch(_:)``).
    public func dispatch(_ action: any StoreAction & Encodable) {
        store.dispatch(action)
    }
}
#endif
