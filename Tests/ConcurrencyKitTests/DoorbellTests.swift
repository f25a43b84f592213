import ConcurrencyKit
import HTTPTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``Doorbell``: an eventfd rung by one thread, waited on with `poll` by another.
@Suite struct DoorbellTests {
    /// Whether `bell` is readable now (no wait).
    private static func isReadable(_ bell: Doorbell, waiting milliseconds: Int32 = 0) -> Bool {
        var descriptor = pollfd(fd: bell.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) == 1 && descriptor.revents & Int16(POLLIN) != 0
    }

    @Test func ringsAddUpUntilDrained() throws {
        let bell = try Doorbell()
        #expect(!Self.isReadable(bell))
        #expect(bell.drain() == 0, "not rung: nothing to take, and no block")
        bell.ring()
        bell.ring()
        bell.ring()
        #expect(Self.isReadable(bell))
        #expect(bell.drain() == 3)
        #expect(!Self.isReadable(bell))
    }

    @Test func aRingFromAnotherThreadWakesAPoll() throws {
        let bell = try Doorbell()
        let woken = Lock(false)
        let errors = runOnThreads(2) { index in
            if index == 0 {
                woken.withLock { $0 = Self.isReadable(bell, waiting: 10_000) }
            } else {
                bell.ring()
            }
        }
        #expect(errors.isEmpty)
        #expect(woken.withLock { $0 })
        #expect(bell.drain() == 1)
    }
}
