/// A first-in first-out queue for the work waiting in a ``WorkerPool`` or a ``SerialLane``: an
/// array read from a moving head, so taking the first element is O(1) and the storage is reused
/// once the queue runs empty (ConcurrencyKit has no dependency that brings a deque).
struct JobQueue<Element> {
    private var items: [Element?] = []
    private var head = 0

    /// Whether nothing waits.
    var isEmpty: Bool { head == items.count }

    /// How many elements wait.
    var count: Int { items.count - head }

    /// Adds `element` at the end.
    mutating func append(_ element: Element) {
        items.append(element)
    }

    /// Takes the first element; nil when empty.
    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Takes every element, oldest first.
    mutating func removeAll() -> [Element] {
        defer {
            items.removeAll()
            head = 0
        }
        return items[head...].compactMap { $0 }
    }
}
