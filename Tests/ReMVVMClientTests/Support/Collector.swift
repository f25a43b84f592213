import ConcurrencyKit
import Foundation

/// Reads an `AsyncSequence` on a task of its own and keeps what it yields, so that a test can act
/// (dispatch, restart the server) between waits: ``wait(within:until:)`` returns once the elements
/// satisfy a condition, or fails at its deadline.
final class Collector<Element: Sendable>: Sendable {
    private typealias Waiter = (isDone: @Sendable ([Element]) -> Bool, continuation: CheckedContinuation<[Element]?, Never>)

    private struct State {
        var items: [Element] = []
        var failure: String?
        var ended = false
        var waiters: [UUID: Waiter] = [:]
        /// Waits whose deadline passed before they registered.
        var expired: Set<UUID> = []

        /// Removes and returns the waiters whose condition holds now (all of them once ended).
        mutating func satisfied() -> [(CheckedContinuation<[Element]?, Never>, [Element]?)] {
            var ready: [(CheckedContinuation<[Element]?, Never>, [Element]?)] = []
            for (id, waiter) in waiters {
                if waiter.isDone(items) {
                    ready.append((waiter.continuation, items))
                    waiters[id] = nil
                } else if ended {
                    ready.append((waiter.continuation, nil))
                    waiters[id] = nil
                }
            }
            return ready
        }
    }

    private let state = Lock(State())
    private let task: Lock<Task<Void, Never>?> = Lock(nil)

    init<Sequence: AsyncSequence & Sendable>(_ sequence: Sequence) where Sequence.Element == Element {
        let state = self.state
        let reader = Task {
            do {
                for try await element in sequence {
                    let ready = state.withLock { state in
                        state.items.append(element)
                        return state.satisfied()
                    }
                    for (continuation, items) in ready { continuation.resume(returning: items) }
                }
                Self.end(state, failure: nil)
            } catch {
                Self.end(state, failure: "\(error)")
            }
        }
        task.withLock { $0 = reader }
    }

    deinit {
        cancel()
    }

    private static func end(_ state: Lock<State>, failure: String?) {
        let ready = state.withLock { state in
            state.failure = failure
            state.ended = true
            return state.satisfied()
        }
        for (continuation, items) in ready { continuation.resume(returning: items) }
    }

    /// Stops reading.
    func cancel() {
        task.withLock { $0 }?.cancel()
    }

    /// Everything collected so far.
    var items: [Element] {
        state.withLock { $0.items }
    }

    /// Why the sequence failed, nil while it did not.
    var failure: String? {
        state.withLock { $0.failure }
    }

    /// Waits until `isDone` holds for the elements so far; throws ``TimedOut`` after `timeout`, or
    /// when the sequence ended without it.
    @discardableResult
    func wait(within timeout: Duration = .seconds(30), until isDone: @escaping @Sendable ([Element]) -> Bool) async throws -> [Element] {
        let id = UUID()
        let state = self.state
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil { state.expired.insert(id) }
                return waiter
            }
            waiter?.continuation.resume(returning: nil)
        }
        defer { deadline.cancel() }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
            let now = state.withLock { state -> [Element]?? in
                if isDone(state.items) { return .some(state.items) }
                if state.ended || state.expired.remove(id) != nil { return .some(nil) }
                state.waiters[id] = (isDone, continuation)
                return .none
            }
            if let now { continuation.resume(returning: now) }
        }
        guard let result else {
            let (count, failure) = state.withLock { ($0.items.count, $0.failure) }
            throw TimedOut(what: "a condition, with \(count) elements collected (failure: \(failure ?? "none"))")
        }
        return result
    }

    /// Waits until at least `count` elements came.
    @discardableResult
    func wait(for count: Int, within timeout: Duration = .seconds(30)) async throws -> [Element] {
        try await wait(within: timeout) { $0.count >= count }
    }
}
