// Linux only (pthread_t is a pointer type on Darwin, and the thread names live in /proc): the
// server's threads. The rest of ConcurrencyKit, which ReMVVM and ReMVVMClient use, builds on Apple
// platforms too.
#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// Starts a plain pthread running `body` and returns its handle (join or detach it), or nil when
/// the system refuses: what a ``Worker`` runs on (use a ``Worker``). For work that blocks in
/// system calls (epoll, sockets, condition waits) and must not tie up a thread of Swift's
/// cooperative pool, which has only one per core. `name` (at most 15 bytes are kept) is what
/// `top -H`, `perf` and debuggers show; unnamed threads show the name of the thread that started
/// them.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
    let context = Unmanaged.passRetained(ThreadBody(name: name, body))
    var handle = pthread_t()
    guard pthread_create(&handle, nil, threadMain, context.toOpaque()) == 0 else {
        context.release()
        return nil
    }
    return handle
}

/// Runs blocking work (joining threads, waiting on conditions: a graceful stop) on a ``Worker`` of
/// its own, named `blocking-work`, and suspends the caller until it is done.
package func runOnOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
        let run: @Sendable () -> Void = { continuation.resume(returning: work()) }
        do {
            // The started thread holds the worker until the work returns.
            try Worker(named: "blocking-work").start { _ in run() }
        } catch {
            run()  // no thread to be had: run it here rather than not at all
        }
    }
}

private final class ThreadBody: Sendable {
    let name: String
    let run: @Sendable () -> Void

    init(name: String, _ run: @escaping @Sendable () -> Void) {
        self.name = name
        self.run = run
    }
}

private func threadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let body = Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue()
    nameThisThread(body.name)
    body.run()
    return nil
}

/// The calling thread's name, read from its `comm` file (where ``startThread(named:_:)`` and
/// libraries write it); empty when it cannot be read.
package func currentThreadName() -> String {
    let descriptor = open("/proc/thread-self/comm", O_RDONLY)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return "" }
    return String(decoding: bytes.prefix(count).filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
}

/// Names the calling thread (Linux keeps 15 bytes) by writing its `comm` file, which is what
/// `pthread_setname_np` does too (that one is not visible to Swift through Glibc).
private func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
#endif
