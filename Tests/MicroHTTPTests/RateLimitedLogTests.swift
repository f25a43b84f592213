import ConcurrencyKit
import HTTPTestSupport
import Logging
import MicroHTTP
import Testing

/// A repeated error is logged once, then counted; the next line after the interval says how
/// many were left out.
@Suite struct RateLimitedLogTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let instant = Lock(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    private static func lines(of log: CapturedLog) -> [String] {
        var lines: [String] = []
        while let line = log.messages.next(timeout: .zero) {
            lines.append(line)
        }
        return lines
    }

    @Test func aFloodOfOneErrorIsOneLineThenACount() {
        let captured = CapturedLog()
        let logger = captured.logger()
        let clock = ManualClock()
        let log = RateLimitedLog(interval: .seconds(10), now: { clock.now })
        for request in 1...654 {
            log.log(.error, "refusing request \(request)", to: logger)
            clock.advance(by: .milliseconds(4))
        }
        #expect(Self.lines(of: captured) == ["error refusing request 1"])
        clock.advance(by: .seconds(10))
        log.log(.error, "refusing request 655", to: logger)
        #expect(Self.lines(of: captured) == ["error refusing request 655 (653 more times since the previous line, not logged)"])
        clock.advance(by: .seconds(10))
        log.log(.error, "refusing request 656", to: logger)
        #expect(Self.lines(of: captured) == ["error refusing request 656"])
    }

    @Test func kindsAreCountedApart() {
        let captured = CapturedLog()
        let logger = captured.logger()
        let clock = ManualClock()
        let log = RateLimitedLog(interval: .seconds(10), now: { clock.now })
        log.log(.error, "a", kind: 1, to: logger)
        log.log(.error, "b", kind: 2, to: logger)
        log.log(.error, "a again", kind: 1, to: logger)
        #expect(Self.lines(of: captured) == ["error a", "error b"])
    }

    @Test func aMessageBelowTheLoggersLevelIsNeitherBuiltNorCounted() {
        let captured = CapturedLog()
        let logger = captured.logger(level: .warning)
        let log = RateLimitedLog(interval: .seconds(10), now: { .now })
        log.log(.debug, "\(Issue.record("built a message that is not logged"))", to: logger)
        log.log(.warning, "shown", to: logger)
        #expect(Self.lines(of: captured) == ["warning shown"])
    }
}
