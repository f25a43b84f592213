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
public final class Lock<State>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// The state, behind a pointer rather than in a stored `var`: an `inout` access to a class's
    /// stored property is checked for exclusivity at run time (`swift_beginAccess` and
    /// `swift_endAccess`, about 120 instructions, 13 times per `POST /actions`), and the mutex
    /// already makes every access exclusive.
    @usableFromInline let statePointer: UnsafeMutablePointer<State>
    /// The mutex, the state and the condition in one block, in that order: a small state shares
    /// the mutex's cache line (a server with thousands of stores touches many cold locks per
    /// request), and one allocation instead of three.
    private let block: UnsafeMutableRawPointer

    /// Creates the lock around `state`.
    public init(_ state: State) {
        let stateOffset = Self.aligned(MemoryLayout<pthread_mutex_t>.size, to: MemoryLayout<State>.alignment)
        let conditionOffset = Self.aligned(
            stateOffset + MemoryLayout<State>.size, to: MemoryLayout<pthread_cond_t>.alignment
        )
        block = .allocate(
            byteCount: conditionOffset + MemoryLayout<pthread_cond_t>.size,
            alignment: max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<State>.alignment, MemoryLayout<pthread_cond_t>.alignment)
        )
        mutex = block.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        statePointer = (block + stateOffset).bindMemory(to: State.self, capacity: 1)
        condition = (block + conditionOffset).bindMemory(to: pthread_cond_t.self, capacity: 1)
        statePointer.initialize(to: state)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)  // Darwin has no pthread_condattr_setclock: its waits use the wall clock
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        statePointer.deinitialize(count: 1)
        block.deallocate()
    }

    private static func aligned(_ offset: Int, to alignment: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
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
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&statePointer.pointee)
    }

    /// Waits until `isReady` holds for the state, then runs `body` with the lock still held. The
    /// lock is released while waiting; `isReady` runs with it held, after every notification.
    package func withLock<Result, Failure: Error>(
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

    /// Waits until `isReady` holds or `timeout` passes, then runs `body` with the lock held and
    /// whether the state became ready.
    package func withLock<Result, Failure: Error>(
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

    /// Waits until `isReady` holds or `timeout` passes; returns whether it holds. Only reads the
    /// state (no `inout` access), so it suits locks that guard nothing but a condition, `Lock(())`.
    package func wait(timeout: Duration, until isReady: (State) -> Bool) -> Bool {
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

    /// Wakes every waiter so it checks its condition again. Change the state first (under the
    /// lock, or in an atomic the condition reads), then notify: this takes the lock, so a waiter
    /// that has just found the condition false cannot miss the wake-up.
    package func notifyAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Wakes one waiter; use it only when every waiter waits for the same condition and one of
    /// them can consume the change.
    package func notifyOne() {
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
