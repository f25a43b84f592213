#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread-safe FIFO that blocks readers until an element arrives or a deadline passes:
/// how tests wait for something that happens on a server thread, without sleeping.
public final class Mailbox<Element: Sendable>: @unchecked Sendable {
    // Unchecked: `items` is only touched with `mutex` held; the pthread objects have fixed addresses.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [Element] = []

    /// Creates an empty mailbox.
    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Adds an element and wakes a waiting reader; callable from any thread.
    public func post(_ element: Element) {
        pthread_mutex_lock(mutex)
        items.append(element)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Removes and returns the oldest element, waiting up to `timeout`; `nil` on timeout.
    public func next(timeout: Duration) -> Element? {
        var deadline = monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while items.isEmpty {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT, items.isEmpty {
                return nil
            }
        }
        return items.removeFirst()
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
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return items
    }
}

func monotonicDeadline(after timeout: Duration) -> timespec {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let (seconds, attoseconds) = max(timeout, .zero).components
    var nanoseconds = Int64(now.tv_nsec) + attoseconds / 1_000_000_000
    var wholeSeconds = Int64(now.tv_sec) + min(seconds, Int64(Int32.max))
    if nanoseconds >= 1_000_000_000 {
        nanoseconds -= 1_000_000_000
        wholeSeconds += 1
    }
    return timespec(tv_sec: Int(wholeSeconds), tv_nsec: Int(nanoseconds))
}
