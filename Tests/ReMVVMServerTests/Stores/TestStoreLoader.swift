import ConcurrencyKit
import Journal
import ReMVVMServer

/// A ``StoreLoader`` for the directory's tests: stores that are plain objects, a log of what was
/// loaded, unloaded and ended, loads that fail or wait on request, and streams opened by hand.
final class TestStoreLoader: StoreLoader {
    /// One loaded store.
    final class TestStore: Sendable {
        let description: StoreDescription
        let openStreams = Lock(0)

        init(description: StoreDescription) {
            self.description = description
        }
    }

    private struct State {
        var log: [String] = []
        var failing: Set<String> = []
        var holding = false
        var loadsStarted = 0
        var deleted: [String] = []
    }

    let unloads: Bool
    private let state = Lock(State())

    init(unloads: Bool = true) {
        self.unloads = unloads
    }

    /// `"load a"`, `"unload a"`, `"end a"`, in order.
    var log: [String] { state.withLock { $0.log } }

    /// The ids whose kept data ``deleted(_:)`` was told to remove, in order.
    var deletedIDs: [String] { state.withLock { $0.deleted } }

    /// Loads of `id` fail until ``succeed(_:)``.
    func fail(_ id: String) { state.withLock { _ = $0.failing.insert(id) } }
    func succeed(_ id: String) { state.withLock { _ = $0.failing.remove(id) } }

    /// Loads wait until ``release()``.
    func hold() { state.withLock { $0.holding = true } }
    func release() {
        state.withLock { $0.holding = false }
        state.notifyAll()
    }

    /// Waits until `count` loads have started; false after 10 s.
    func waitForLoadsStarted(_ count: Int) -> Bool {
        state.wait(timeout: .seconds(10)) { $0.loadsStarted >= count }
    }

    func load(_ description: StoreDescription) throws -> TestStore {
        let failing = state.withLock { state in
            state.loadsStarted += 1
            return state.failing.contains(description.id.rawValue)
        }
        state.notifyAll()
        _ = state.wait(timeout: .seconds(10)) { !$0.holding }
        if failing {
            state.withLock { $0.log.append("fail \(description.id)") }
            throw JournalError(code: .corrupt, message: "test failure of \(description.id)")
        }
        state.withLock { $0.log.append("load \(description.id)") }
        return TestStore(description: description)
    }

    func unload(_ store: TestStore) {
        state.withLock { $0.log.append("unload \(store.description.id)") }
    }

    func end(_ store: TestStore) {
        state.withLock { $0.log.append("end \(store.description.id)") }
    }

    func deleted(_ id: StoreID) {
        state.withLock { $0.deleted.append(id.rawValue) }
    }

    func hasOpenStreams(_ store: TestStore) -> Bool {
        store.openStreams.withLock { $0 > 0 }
    }
}

/// A clock the tests move by hand (milliseconds).
final class ManualClock: Sendable {
    private let time = Lock<Int64>(1_000_000)

    var now: Int64 { time.withLock { $0 } }

    func advance(seconds: Int64) {
        time.withLock { $0 += seconds * 1_000 }
    }
}

/// A directory over a memory catalog and a ``TestStoreLoader``, on a manual clock.
struct DirectoryFixture {
    let loader: TestStoreLoader
    let clock = ManualClock()
    let catalog: MemoryStoreCatalog
    let directory: StoreDirectory<TestStoreLoader>

    init(
        unloads: Bool = true, autoCreate: Bool = false, maxStores: Int = 1_000, maxLoaded: Int = 1_000,
        idleSeconds: Int64? = 300, waitLimit: Duration = .seconds(10)
    ) {
        let loader = TestStoreLoader(unloads: unloads)
        let clock = clock
        let catalog = MemoryStoreCatalog(createdAt: clock.now)
        self.loader = loader
        self.catalog = catalog
        let defaultStore = TestStoreLoader.TestStore(description: catalog.describe(.default)!)  // created just above
        directory = StoreDirectory(
            defaultStore: defaultStore,
            catalog: catalog,
            loader: loader,
            limits: StoreLimits(
                autoCreate: autoCreate, maxStores: maxStores, maxLoaded: maxLoaded, idleTime: idleSeconds.map { .seconds($0) }
            ),
            waitLimit: waitLimit,
            now: { clock.now }
        )
    }

    /// Creates stores through the catalog (not loaded).
    func create(_ names: String...) throws {
        for name in names { _ = try directory.create(StoreID(name)) }
    }

    /// Leases and releases the store `name` (one request).
    @discardableResult
    func use(_ name: String, creating: Bool = false) throws -> TestStoreLoader.TestStore {
        try directory.withStore(StoreID(name), creating: creating) { $0 }
    }
}
