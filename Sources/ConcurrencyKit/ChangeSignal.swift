/// Lets threads wait for a condition on state that lives elsewhere (counters, registries) without
/// polling: whoever changes that state calls ``changed()``, and waiters re-check their condition.
///
/// ``changed()`` costs one uncontended lock while nobody waits; it wakes only when someone does.
package final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters = 0
    }

    private let state = Lock(State())

    package init() {}

    /// Call after each change of the watched state (not while holding a lock the condition takes).
    package func changed() {
        let someoneWaits = state.withLock { state in
            state.generation &+= 1
            return state.waiters > 0
        }
        if someoneWaits {
            state.notifyAll()
        }
    }

    /// Waits until `condition` holds, re-checking it after every change; false after `timeout`.
    /// `condition` runs with this signal's lock held: it may take other locks, but must not call
    /// ``changed()``.
    package func wait(timeout: Duration, until condition: () -> Bool) -> Bool {
        state.withLock { $0.waiters += 1 }
        defer { state.withLock { $0.waiters -= 1 } }
        return state.wait(timeout: timeout) { _ in condition() }
    }
}
