import ConcurrencyKit

/// The observers of one store: added once per instance, removed at once, dropped when deallocated.
///
/// Whether it holds any is its store's to keep (told through `observed`, under this registry's
/// lock): most stores served over HTTP have no observer, and every reduce asks twice — through
/// the lock and the entries' generic metadata that cost about 330 instructions each time, and in
/// an object of its own one more cold line over many stores; the flag in the store costs neither.
final class ObserverRegistry<Root>: Sendable {
    private let entries = Lock<[ObserverEntry<Root>]>([])

    /// Registers `observer` and returns its entry, or nil when it is already registered or observes a
    /// type the store cannot produce (such an observer is never called).
    /// `observed` is told whether any observer is registered, under the lock.
    func register<Observer: StateObserver>(
        _ observer: Observer,
        mappings: StateMappings<Root>,
        sample: Root,
        observed: (Bool) -> Void
    ) -> ObserverEntry<Root>? {
        guard let resolve = mappings.resolver(for: Observer.State.self, sample: sample) else { return nil }
        return entries.withLock { entries -> ObserverEntry<Root>? in
            entries.removeAll { !$0.isLive }
            guard !entries.contains(where: { $0.represents(observer) }) else { return nil }
            let entry = ObserverEntry(observer: observer, resolve: resolve)
            entries.append(entry)
            observed(true)
            return entry
        }
    }

    /// Removes `observer`; no call starts after this returns. `observed` is told whether any
    /// observer is still registered, under the lock.
    func unregister(_ observer: AnyObject, observed: (Bool) -> Void) {
        entries.withLock { entries in
            for entry in entries where entry.represents(observer) {
                entry.markRemoved()
            }
            entries.removeAll { !$0.isLive }
            observed(!entries.isEmpty)
        }
    }

    /// The entries to notify now, in the order they were added.
    var current: [ObserverEntry<Root>] {
        entries.withLock { $0 }
    }

    /// How many live observers there are.
    var count: Int {
        entries.withLock { entries in entries.count(where: \.isLive) }
    }
}
