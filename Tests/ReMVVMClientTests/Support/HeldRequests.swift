import ConcurrencyKit
import Foundation

/// Holds the requests of a test transport's hook (``hold()``) until their task is cancelled, then
/// lets every later one through (``letEverythingThrough()``): a send interrupted at a chosen point.
final class HeldRequests: Sendable {
    private struct State {
        var holding = true
        var held: [UUID: CheckedContinuation<Void, any Error>] = [:]
        var heldOnce = false
        var watcher: CheckedContinuation<Void, Never>?
    }

    private let state = Lock(State())

    /// Waits until the calling task is cancelled (throwing `CancellationError`), or returns at
    /// once after ``letEverythingThrough()``.
    func hold() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (passes, watcher) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                    guard state.holding, !Task.isCancelled else { return (true, nil) }
                    state.held[id] = continuation
                    state.heldOnce = true
                    defer { state.watcher = nil }
                    return (false, state.watcher)
                }
                watcher?.resume()
                if passes {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            state.withLock { $0.held.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Returns once a request is held.
    func waitUntilHeld() async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.heldOnce { return true }
                state.watcher = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Holds nothing from now on (requests held now stay held until cancelled).
    func letEverythingThrough() {
        state.withLock { $0.holding = false }
    }
}
