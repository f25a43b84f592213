// Linux only (eventfd): the server's threads use it. The rest of ConcurrencyKit, which ReMVVM and
// ReMVVMClient use, builds on Apple platforms too.
#if canImport(Glibc) || canImport(Musl)
internal import CLinux
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An eventfd one thread rings to wake another that waits on its ``descriptor`` with `poll` or
/// `epoll` beside other descriptors: MicroHTTP's stream watcher (to stop) and the PostgreSQL log
/// follower (for entries handed over).
///
/// Rings add up until ``drain()`` takes them; the descriptor stays readable meanwhile. The
/// descriptor is non-blocking and closed with the object.
package final class Doorbell: Sendable {
    /// What to wait on for readability.
    package let descriptor: Int32

    /// A new eventfd (non-blocking, closed on exec); throws if the system refuses one (out of
    /// descriptors).
    package init() throws(SystemCallError) {
        descriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK)) }
    }

    deinit {
        // Not retried: after EINTR the descriptor is released already (close(2) on Linux).
        if close(descriptor) != 0 {
            assertionFailure("close of an eventfd failed: errno \(errno)")
        }
    }

    /// Rings the bell; never blocks.
    ///
    /// An 8-byte write to an open eventfd fails only when its counter would overflow
    /// (`EAGAIN`, the bell is rung already) or when the value is not allowed (`EINVAL`, never
    /// with 1): eventfd(2).
    package func ring() {
        var one: UInt64 = 1
        do {
            let written = try systemCall("write(eventfd)") { write(descriptor, &one, MemoryLayout<UInt64>.size) }
            assert(written == MemoryLayout<UInt64>.size, "an eventfd takes 8 bytes or none")
        } catch where error.wouldBlock {
            return
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Takes the rings so far: how many there were, 0 if none (the descriptor is not readable
    /// afterwards until the next ring).
    ///
    /// An 8-byte read from an open non-blocking eventfd fails only with `EAGAIN` (not rung).
    package func drain() -> UInt64 {
        var count: UInt64 = 0
        do {
            let taken = try systemCall("read(eventfd)") { read(descriptor, &count, MemoryLayout<UInt64>.size) }
            assert(taken == MemoryLayout<UInt64>.size, "an eventfd gives 8 bytes or none")
            return count
        } catch where error.wouldBlock {
            return 0
        } catch {
            preconditionFailure("\(error)")
        }
    }
}
#endif
