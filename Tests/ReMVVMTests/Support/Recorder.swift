import Dispatch
import Synchronization

/// A thread-safe, ordered log of what happened during a test.
final class Recorder: Sendable {
    private let entries = Mutex<[String]>([])

    func record(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var log: [String] {
        entries.withLock { $0 }
    }

    func clear() {
        entries.withLock { $0.removeAll() }
    }
}

/// A value written once from any thread and awaited with a deadline (never a sleep).
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

/// A box for values handed between threads in tests.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        storage.withLock { $0 }
    }

    func update(_ body: (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }

    /// Changes the value and returns something taken from it, atomically.
    func take<Taken: Sendable>(_ body: (inout Value) -> Taken) -> Taken {
        storage.withLock { body(&$0) }
    }
}
