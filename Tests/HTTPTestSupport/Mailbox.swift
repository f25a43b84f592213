import DequeModule
import ConcurrencyKit

/// A thread-safe FIFO that blocks readers until an element arrives or a deadline passes:
/// how tests wait for something that happens on a server thread, without sleeping.
public final class Mailbox<Element: Sendable>: Sendable {
    private let items = Lock<Deque<Element>>([])

    /// Creates an empty mailbox.
    public init() {}

    /// Adds an element and wakes a waiting reader; callable from any thread.
    public func post(_ element: Element) {
        items.withLock { $0.append(element) }
        items.notifyAll()
    }

    /// Removes and returns the oldest element, waiting up to `timeout`; `nil` on timeout.
    public func next(timeout: Duration) -> Element? {
        items.withLock(waitingUntil: { !$0.isEmpty }, timeout: timeout) { items, _ in items.popFirst() }
    }

    /// Removes and returns `count` elements in order, waiting up to `timeout` in total;
    /// returns fewer if the deadline passes first.
    public func next(_ count: Int, timeout: Duration) -> [Element] {
        let deadline = ContinuousClock.now + timeout
        var taken: [Element] = []
        while taken.count < count, let element = next(timeout: max(.zero, deadline - .now)) {
            taken.append(element)
        }
        return taken
    }

    /// The elements posted and not taken yet, without waiting or removing them.
    public var snapshot: [Element] {
        items.withLock { Array($0) }
    }
}
