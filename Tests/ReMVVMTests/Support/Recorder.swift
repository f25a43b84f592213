import Dispatch
import Foundation

/// A thread-safe, ordered log of what happened during a test.
final class Recorder: Sendable {
    private let entries = Shared<[String]>([])

    func record(_ entry: String) {
        entries.update { $0.append(entry) }
    }

    var log: [String] {
        entries.value
    }

    func clear() {
        entries.update { $0.removeAll() }
    }
}

/// A one-shot event fired from any thread and awaited with a deadline (never a sleep).
final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func fire() {
        semaphore.signal()
    }

    /// True if the signal fired before the deadline.
    func wait(seconds: Double = 5) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

/// A value shared between threads in tests, guarded by an NSLock (visible to ThreadSanitizer).
final class Shared<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `storage` is only touched with `lock` held.
    private let lock = NSLock()
    private var storage: Value

    init(_ value: Value) {
        storage = value
    }

    var value: Value {
        lock.withLock { storage }
    }

    func update(_ body: (inout Value) -> Void) {
        lock.withLock { body(&storage) }
    }

    /// Changes the value and returns something taken from it, atomically.
    func take<Taken: Sendable>(_ body: (inout Value) -> Taken) -> Taken {
        lock.withLock { body(&storage) }
    }
}
