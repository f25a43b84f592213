import ConcurrencyKit

/// A thread-safe, ordered log of what happened during a test.
final class Recorder: Sendable {
    private let entries = Lock<[String]>([])

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

/// An event fired from any thread and awaited with a deadline (never a sleep); each wait consumes
/// one firing.
final class Signal: Sendable {
    private let firings = Lock(0)

    func fire() {
        firings.withLock { $0 += 1 }
        firings.notifyAll()
    }

    /// True if the signal fired (and was not consumed yet) before the deadline.
    func wait(seconds: Double = 5) -> Bool {
        firings.withLock(waitingUntil: { $0 > 0 }, timeout: .milliseconds(Int(seconds * 1000))) { firings, fired in
            if fired { firings -= 1 }
            return fired
        }
    }
}
