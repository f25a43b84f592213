import DequeModule
import ConcurrencyKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a store's work one item at a time, in order, without ever blocking a caller on another
/// thread's user code.
///
/// - The thread that owns the processor runs new work inline (a nested dispatch is processed at once).
/// - A caller that finds the processor idle takes ownership and runs the work itself (the fast path).
/// - A caller that finds another thread processing queues the work; the owner drains the queue, in
///   order, before it gives ownership up. The caller is not blocked, so a middleware that waits for a
///   deferred `next` from another thread cannot deadlock the store.
///
/// Every work item therefore runs with exclusive access to the store; the mutex hand-over gives each
/// item a happens-before edge from the previous one.
///
/// Held inline in its store (noncopyable): every dispatch goes through it, and over many stores an
/// object of its own was one more cold cache line per request to a store touched once in a while.
struct SerialProcessor: ~Copyable, Sendable {
    /// A unit of store work.
    typealias Work = @Sendable () -> Void

    private struct Queue {
        var owner: pthread_t?
        var items: Deque<Work> = []
        /// Items queued since the queue was last empty: a burst larger than 1,024 releases its
        /// storage once drained instead of keeping its peak size.
        var queuedSinceEmpty = 0
    }

    /// What a caller may do: run inline (it owns the processor already), run as the new owner, or
    /// not (another thread owns it; the work, if any was given, is queued).
    private enum Admission {
        case nested, owner, busy
    }

    private let queue = Lock(Queue())
    /// The owner's thread (``threadWord(_:)``), also outside the lock, 0 when nobody owns the
    /// processor: set by a thread when it takes ownership and cleared by it when it gives it up
    /// (both under the lock), so a thread that reads its own word here is the owner, at any
    /// ordering — it wrote that value itself. See ``isProcessingOnCurrentThread``.
    private let ownerThread = Atomic<UInt>(0)

    /// Takes ownership if nobody has it; when another thread has it, queues `work` (if given).
    private func admit(_ me: pthread_t, queueing work: Work?) -> Admission {
        queue.withLock { state -> Admission in
            if let owner = state.owner {
                if pthread_equal(owner, me) != 0 { return .nested }
                if let work {
                    state.items.append(work)
                    state.queuedSinceEmpty += 1
                }
                return .busy
            }
            state.owner = me
            ownerThread.store(Self.threadWord(me), ordering: .relaxed)
            return .owner
        }
    }

    /// Whether the calling thread is the one processing now: work it runs would run inline (a
    /// nested dispatch). Lets a caller skip ``runAndWait(_:)``'s closure and lock when it is
    /// already inside the processor's work.
    func isProcessingOnCurrentThread() -> Bool {
        ownerThread.load(ordering: .relaxed) == Self.threadWord(pthread_self())
    }

    /// A thread's handle as one word (never 0 for a running thread).
    private static func threadWord(_ thread: pthread_t) -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: thread)
        #else
        UInt(thread)
        #endif
    }

    /// Runs `work` now if the store is idle or this thread owns it; queues it otherwise.
    /// - Returns: true when `work` has run before this returns.
    @discardableResult
    func run(_ work: @escaping Work) -> Bool {
        switch admit(pthread_self(), queueing: work) {
        case .nested:
            work()
            return true
        case .owner:
            work()
            drainAndRelease()
            return true
        case .busy:
            return false
        }
    }

    /// Runs `work` exclusively and waits for it, even when another thread is processing.
    ///
    /// A busy store is usually busy for microseconds, so the caller first tries to take ownership
    /// itself, yielding the processor between attempts; only then does it queue the work and sleep
    /// until the owner has run it. That saves a thread hand-off (two context switches) per call when
    /// several HTTP workers dispatch at once.
    ///
    /// Do not call this from a thread that the store's middleware or observers wait on: if the
    /// processing thread waits for the caller, neither can go on. HTTP worker threads are safe.
    func runAndWait<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result {
        let me = pthread_self()
        for _ in 0..<Self.ownershipAttempts {
            switch admit(me, queueing: nil) {
            case .nested:
                return work()
            case .owner:
                let result = work()
                drainAndRelease()
                return result
            case .busy:
                sched_yield()
            }
        }
        let box = ResultBox<Result>()
        if !run({ box.store(work()) }) {
            box.waitUntilStored()
        }
        return box.take()
    }

    /// How many times ``runAndWait(_:)`` tries to take ownership before it queues and sleeps.
    private static let ownershipAttempts = 32

    private func drainAndRelease() {
        while let next = queue.withLock({ state -> Work? in
            if let item = state.items.popFirst() { return item }
            if state.queuedSinceEmpty > 1_024 {
                state.items = []
            }
            state.queuedSinceEmpty = 0
            state.owner = nil
            ownerThread.store(0, ordering: .relaxed)
            return nil
        }) {
            next()
        }
    }
}

/// A one-shot result handed from the processing thread to a waiting caller.
private final class ResultBox<Value: Sendable>: Sendable {
    private let value = Lock<Value?>(nil)

    func store(_ result: Value) {
        value.withLock { $0 = result }
        value.notifyAll()
    }

    func waitUntilStored() {
        value.withLock(waitingUntil: { $0 != nil }) { _ in }
    }

    func take() -> Value {
        guard let result = value.withLock({ $0 }) else {
            // `take` runs after `store` (inline, or after `waitUntilStored`), so the value is there.
            preconditionFailure("result taken before it was stored")
        }
        return result
    }
}
