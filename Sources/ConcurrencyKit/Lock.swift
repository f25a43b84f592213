#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// State shared between threads, kept inside a pthread mutex, with a condition variable for waiting
/// until the state is ready. The one lock of this package: every target uses it.
///
/// A pthread mutex, not `Synchronization.Mutex`: on Linux that one is built on raw futexes that
/// ThreadSanitizer cannot see, so every access under it is reported as a race (measured here: two
/// threads appending under `Mutex.withLock` are flagged). TSan intercepts pthread calls, which keeps
/// `swift test --sanitize=thread` meaningful, and an uncontended pthread mutex costs the same.
///
/// ```swift
/// let inbox = Lock(Inbox())
/// inbox.withLock { $0.items.append(item) }
/// inbox.notifyAll()
/// let items = inbox.withLock(waitingUntil: { !$0.items.isEmpty }) { $0.takeAll() }
/// ```
///
/// Unchecked `Sendable`: `state` is only read or written between `pthread_mutex_lock` and
/// `pthread_mutex_unlock`. Values that leave the lock must be safe to use on another thread;
/// keep `State` `Sendable` unless the owner documents why not.
///
/// A struct holding one object, its ``LockStorage``: copies share the lock, as references to a
/// class would. The mutex, the state and the condition live in that object itself, so reaching a
/// lock from its owner touches one object: over many stores a request touches many cold locks,
/// and a lock that was a class pointing at a separate block cost a second cold line each
/// (`docs/benchmarks.md`, 2026-12-01, 06:10–07:10 UTC). Every method is inlined into a call of the
/// storage's: a generic class's method takes its type arguments from the object, while a
/// generic struct's method, called from code not specialized for `State` (a store's, over
/// `Current<State>`), would have the caller look `State`'s metadata up at run time.
public struct Lock<State>: @unchecked Sendable {
    @usableFromInline let storage: LockStorage<State>

    /// Creates the lock around `state`.
    public init(_ state: State) {
        storage = LockStorage.make(state)
    }

    /// Runs `body` with exclusive access to the state. Do not call back into code that may take
    /// the same lock (it is not recursive), nor ``notifyAll()`` / ``notifyOne()``.
    ///
    /// Inlinable: callers get it specialized for their state and result, so generic code (a
    /// store's, over the domain's state) does not look up the runtime type of what it returns.
    /// Public, with the lock and its module's imports: the compiler (Swift 6.3, no library
    /// evolution) does not hand an inlinable body declared `package` to the package's other
    /// modules, so every call outside ConcurrencyKit went to the unspecialized generic entry
    /// (583 call sites in a release `remvvm-server`; `docs/benchmarks.md`, 2026-12-01).
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withLock(body)
    }

    /// Waits until `isReady` holds for the state, then runs `body` with the lock still held. The
    /// lock is released while waiting; `isReady` runs with it held, after every notification.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(
        waitingUntil isReady: (State) -> Bool,
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withLock(waitingUntil: isReady, body)
    }

    /// Waits until `isReady` holds or `timeout` passes, then runs `body` with the lock held and
    /// whether the state became ready.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(
        waitingUntil isReady: (State) -> Bool,
        timeout: Duration,
        _ body: (inout State, _ isReady: Bool) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withLock(waitingUntil: isReady, timeout: timeout, body)
    }

    /// Waits until `isReady` holds or `timeout` passes; returns whether it holds. Only reads the
    /// state (no `inout` access), so it suits locks that guard nothing but a condition, `Lock(())`.
    @inlinable @inline(__always)
    public func wait(timeout: Duration, until isReady: (State) -> Bool) -> Bool {
        storage.wait(timeout: timeout, until: isReady)
    }

    /// Wakes every waiter so it checks its condition again. Change the state first (under the
    /// lock, or in an atomic the condition reads), then notify: this takes the lock, so a waiter
    /// that has just found the condition false cannot miss the wake-up.
    @inlinable @inline(__always)
    public func notifyAll() {
        storage.notifyAll()
    }

    /// Wakes one waiter; use it only when every waiter waits for the same condition and one of
    /// them can consume the change.
    @inlinable @inline(__always)
    public func notifyOne() {
        storage.notifyOne()
    }
}

/// The one object behind a ``Lock``: the pthread mutex in its header, then the state and the
/// condition variable in its tail (raw bytes, laid out by ``make(_:)``). A `ManagedBuffer`: the
/// object never moves, so pointers into it stay valid for its life, and neither the mutex nor the
/// state needs an allocation of its own; a small state shares the mutex's cache line.
@usableFromInline
final class LockStorage<State>: ManagedBuffer<pthread_mutex_t, UInt8> {
    /// The mutex, in the object's header.
    @usableFromInline var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0 } }
    }

    /// The state, at the start of the tail: right after the mutex, 8-byte aligned (the header's
    /// size on 64-bit platforms; ``make(_:)`` checks that the state needs no more).
    @usableFromInline var statePointer: UnsafeMutablePointer<State> {
        @inline(__always) get { withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0).assumingMemoryBound(to: State.self) } }
    }

    /// The condition variable, after the state.
    private var condition: UnsafeMutablePointer<pthread_cond_t> {
        withUnsafeMutablePointerToElements {
            (UnsafeMutableRawPointer($0) + Self.conditionOffset).assumingMemoryBound(to: pthread_cond_t.self)
        }
    }

    private static var conditionOffset: Int {
        let alignment = MemoryLayout<pthread_cond_t>.alignment
        return (MemoryLayout<State>.size + alignment - 1) / alignment * alignment
    }

    /// A storage holding `state`, its mutex and condition initialized.
    static func make(_ state: State) -> LockStorage<State> {
        let buffer = create(minimumCapacity: conditionOffset + MemoryLayout<pthread_cond_t>.size) { _ in pthread_mutex_t() }
        // Cannot be another class: `create` makes an instance of the class it is called on.
        let storage = unsafeDowncast(buffer, to: LockStorage<State>.self)
        let stateAddress = UnsafeMutableRawPointer(storage.statePointer)
        precondition(
            Int(bitPattern: stateAddress) % MemoryLayout<State>.alignment == 0,
            "a Lock's state must be aligned to at most 8 bytes"
        )
        precondition(pthread_mutex_init(storage.mutex, nil) == 0, "pthread_mutex_init failed")
        stateAddress.bindMemory(to: State.self, capacity: 1).initialize(to: state)
        let condition = storage.condition
        UnsafeMutableRawPointer(condition).bindMemory(to: pthread_cond_t.self, capacity: 1).initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)  // Darwin has no pthread_condattr_setclock: its waits use the wall clock
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
        return storage
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        statePointer.deinitialize(count: 1)
        // The header (the mutex, a plain C struct) is deinitialized by `ManagedBuffer`.
    }

    /// ``Lock/withLock(_:)``.
    @inlinable
    func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&statePointer.pointee)
    }

    /// ``Lock/withLock(waitingUntil:_:)``.
    @usableFromInline
    func withLock<Result, Failure: Error>(
        waitingUntil isReady: (State) -> Bool,
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isReady(statePointer.pointee) {
            pthread_cond_wait(condition, mutex)
        }
        return try body(&statePointer.pointee)
    }

    /// ``Lock/withLock(waitingUntil:timeout:_:)``.
    @usableFromInline
    func withLock<Result, Failure: Error>(
        waitingUntil isReady: (State) -> Bool,
        timeout: Duration,
        _ body: (inout State, _ isReady: Bool) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var deadline = Self.monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let ready = waitLocked(until: isReady, deadline: &deadline)
        return try body(&statePointer.pointee, ready)
    }

    /// ``Lock/wait(timeout:until:)``.
    @usableFromInline
    func wait(timeout: Duration, until isReady: (State) -> Bool) -> Bool {
        var deadline = Self.monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waitLocked(until: isReady, deadline: &deadline)
    }

    /// With the mutex held: waits until `isReady` holds or `deadline` passes, reading the state
    /// only; returns whether it holds.
    private func waitLocked(until isReady: (State) -> Bool, deadline: inout timespec) -> Bool {
        var ready = isReady(statePointer.pointee)
        while !ready {
            let timedOut = pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT
            ready = isReady(statePointer.pointee)
            if timedOut { break }
        }
        return ready
    }

    /// ``Lock/notifyAll()``.
    @usableFromInline
    func notifyAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// ``Lock/notifyOne()``.
    @usableFromInline
    func notifyOne() {
        pthread_mutex_lock(mutex)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private static func monotonicDeadline(after timeout: Duration) -> timespec {
        var now = timespec()
        #if canImport(Darwin)
        clock_gettime(CLOCK_REALTIME, &now)  // the clock Darwin's pthread_cond_timedwait reads
        #else
        clock_gettime(CLOCK_MONOTONIC, &now)
        #endif
        let (seconds, attoseconds) = max(timeout, .zero).components
        let cappedSeconds = min(seconds, Int64(Int32.max))
        var nanoseconds = Int64(now.tv_nsec) + attoseconds / 1_000_000_000
        var wholeSeconds = Int64(now.tv_sec) + cappedSeconds
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        return timespec(tv_sec: Int(wholeSeconds), tv_nsec: Int(nanoseconds))
    }
}
