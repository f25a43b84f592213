import ConcurrencyKit
import Synchronization

/// The observers of one store: added once per instance, removed at once, dropped when deallocated.
///
/// Held inline in its store (noncopyable): every reduce asks ``isObserved``, and over many stores
/// an object of its own was one more cold cache line per request to a store touched once in a
/// while.
struct ObserverRegistry<Root>: ~Copyable, Sendable {
    private let entries = Lock<[ObserverEntry<Root>]>([])
    /// Whether `entries` holds any, kept beside it under its lock: most stores served over HTTP
    /// have no observer, and every reduce asks twice (the lock and the generic metadata of the
    /// entries cost about 330 instructions each time).
    private let hasEntries = Atomic<Bool>(false)

    /// Registers `observer` and returns its entry, or nil when it is already registered or observes a
    /// type the store cannot produce (such an observer is never called).
    func register<Observer: StateObserver>(
        _ observer: Observer,
        mappings: StateMappings<Root>,
        sample: Root
    ) -> ObserverEntry<Root>? {
        guard let resolve = mappings.resolver(for: Observer.State.self, sample: sample) else { return nil }
        return entries.withLock { entries -> ObserverEntry<Root>? in
            entries.removeAll { !$0.isLive }
            guard !entries.contains(where: { $0.represents(observer) }) else { return nil }
            let entry = ObserverEntry(observer: observer, resolve: resolve)
            entries.append(entry)
            hasEntries.store(true, ordering: .releasing)
            return entry
        }
    }

    /// Removes `observer`; no call starts after this returns.
    func unregister(_ observer: AnyObject) {
        entries.withLock { entries in
            for entry in entries where entry.represents(observer) {
                entry.markRemoved()
            }
            entries.removeAll { !$0.isLive }
            hasEntries.store(!entries.isEmpty, ordering: .releasing)
        }
    }

    /// Whether any observer is registered (no lock, no generic type: asked before every reduce).
    var isObserved: Bool {
        hasEntries.load(ordering: .acquiring)
    }

    /// The entries to notify now, in the order they were added.
    var current: [ObserverEntry<Root>] {
        guard hasEntries.load(ordering: .acquiring) else { return [] }
        return entries.withLock { $0 }
    }

    /// How many live observers there are.
    var count: Int {
        entries.withLock { entries in entries.count(where: \.isLive) }
    }
}
