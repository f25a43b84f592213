#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `body(index)` on `count` new threads at once and waits for all of them; returns the
/// errors thrown, by thread index (empty when all succeeded).
///
/// Real threads, not tasks: test clients block on sockets, which must not tie up the
/// cooperative thread pool.
public func runOnThreads(
    _ count: Int,
    _ body: @escaping @Sendable (Int) throws -> Void
) -> [Int: any Error] {
    let results = (0..<count).map { index in ThreadResult(index: index, body: body) }
    var threads: [pthread_t] = []
    for result in results {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(result).toOpaque()
        if pthread_create(&thread, nil, testThreadMain, context) == 0 {
            threads.append(thread)
        } else {
            Unmanaged<ThreadResult>.fromOpaque(context).release()
            result.error = TestHTTPError(code: .connectFailed, message: "pthread_create failed")
        }
    }
    for thread in threads {
        pthread_join(thread, nil)
    }
    var errors: [Int: any Error] = [:]
    for result in results {
        if let error = result.error {
            errors[result.index] = error
        }
    }
    return errors
}

/// One thread's work and outcome; written by that thread, read after it is joined.
private final class ThreadResult: @unchecked Sendable {
    let index: Int
    let body: @Sendable (Int) throws -> Void
    var error: (any Error)?

    init(index: Int, body: @escaping @Sendable (Int) throws -> Void) {
        self.index = index
        self.body = body
    }
}

private func testThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let result = Unmanaged<ThreadResult>.fromOpaque(context).takeRetainedValue()
    do {
        try result.body(result.index)
    } catch {
        result.error = error
    }
    return nil
}

/// Checks `condition` until it holds, sleeping in between (1 ms, doubling up to 16 ms); `false`
/// if it still does not at the deadline.
///
/// Only for state that offers no change signal (a stream's suspension inside MicroHTTP): prefer
/// `HTTPServer.waitForOccupancy`, `ReMVVMService.waitForSubscribers`, a ``Mailbox`` fed by a
/// callback, or a publication handler. It sleeps rather than spins: on two cores a spinning test
/// takes a core from the server it waits for.
public func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    var pause: Duration = .milliseconds(1)
    while !condition() {
        let now = ContinuousClock.now
        if now >= deadline { return false }
        sleepThread(for: min(pause, deadline - now))
        pause = min(pause * 2, .milliseconds(16))
    }
    return true
}

private func sleepThread(for duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}

/// How a test server writes to event streams: the stream suites run both ways.
public enum StreamWrites: String, CaseIterable, Sendable {
    /// Straight to a waiting stream's socket (the default; `docs/event-delivery.md`).
    case direct
    /// Through libmicrohttpd only (`directStreamWrites` off, or an unverified libmicrohttpd).
    case throughLibmicrohttpd

    /// The `directStreamWrites` setting for this way.
    public var directStreamWrites: Bool { self == .direct }
}
