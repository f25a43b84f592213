#if canImport(Observation)
import ExampleApp
import Observation
import ReMVVMClient
import Testing

/// The `@Observable` wrapper: views reading `state` are told when it changes.
@MainActor
@Suite struct ObservableStoreTests {
    @Test func observersOfTheStateAreToldOfALocalDispatchAndOfTheServersConfirmation() async throws {
        let server = try TestServer()
        // A stream that stalls (seen once in a full run on two cores: no event for 60 s) is
        // reopened after 5 s instead of the default 45, with Last-Event-ID: nothing is lost.
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries, streamIdleTimeout: .seconds(5))
        let store = ObservableStore(store: OptimisticStore(client: client, initial: AppState(), reducer: AppReducer.self))
        defer { store.stop() }
        store.start()
        try await Self.waitForChange(of: store) { store.confirmedVersion == 0 }
        store.dispatch(Login(firstName: "Ada", lastName: "Lovelace"))
        // Confirmed: the server's state, with the time its middleware stamped on the login.
        try await Self.waitForChange(of: store) { store.confirmedVersion == 1 && store.state.user?.loggedInAt != nil }
        #expect(store.state.user?.firstName == "Ada")
    }

    /// Waits, through Observation's change notifications, until `isDone` holds; fails after 60 s
    /// (also when no change comes at all).
    private static func waitForChange(of store: ObservableStore<AppState>, until isDone: @escaping @MainActor () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !isDone() {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(what: "the observed state (confirmed version \(store.confirmedVersion.map(String.init) ?? "none"), user \(store.state.user.map { "\($0)" } ?? "none"))")
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let once = OnceFlag()
                withObservationTracking {
                    _ = store.state
                    _ = store.confirmedVersion
                } onChange: {
                    if once.setOnce() { continuation.resume() }
                }
                // A change between the check above and the tracking's start would be missed: check
                // again now that tracking is on.
                if isDone(), once.setOnce() { continuation.resume() }
                Task.detached {
                    try? await Task.sleep(until: deadline)
                    if once.setOnce() { continuation.resume() }
                }
            }
        }
    }
}

/// True the first time only, from any thread.
final class OnceFlag: Sendable {
    private let flag = LockedFlag()

    func setOnce() -> Bool {
        flag.setOnce()
    }
}
#endif
