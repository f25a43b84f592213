import HTTPTestSupport
@testable import MicroHTTP
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// ``SocketWatcher``: the thread that reports hang-ups and writability of suspended streams'
/// sockets, tested on Unix socket pairs with a recording handler instead of a stream.
@Suite struct SocketWatcherTests {
    final class RecordingHandler: SocketReadinessHandler {
        let reports: Mailbox<SocketInterest>

        init(reports: Mailbox<SocketInterest> = Mailbox()) {
            self.reports = reports
        }

        func socketReady(_ readiness: SocketInterest) {
            reports.post(readiness)
        }
    }

    /// A connected pair of stream sockets: `watched` is watched, `peer` plays the client.
    final class SocketPair {
        let watched: Int32
        private(set) var peer: Int32

        init() throws {
            var descriptors: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0)
            watched = descriptors[0]
            peer = descriptors[1]
        }

        func closePeer() {
            close(peer)
            peer = -1
        }

        /// Fills the watched socket's send buffer until a write would block.
        func fillWatchedSendBuffer() {
            var size: Int32 = 4_096
            setsockopt(watched, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let flags = fcntl(watched, F_GETFL)
            _ = fcntl(watched, F_SETFL, flags | O_NONBLOCK)
            let block = [UInt8](repeating: 1, count: 4_096)
            while block.withUnsafeBytes({ write(watched, $0.baseAddress, $0.count) }) > 0 {}
        }

        /// Reads everything the peer has received, making room in the watched socket's buffer.
        func drainPeer() {
            let flags = fcntl(peer, F_GETFL)
            _ = fcntl(peer, F_SETFL, flags | O_NONBLOCK)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while buffer.withUnsafeMutableBytes({ read(peer, $0.baseAddress, $0.count) }) > 0 {}
        }

        deinit {
            close(watched)
            if peer >= 0 { close(peer) }
        }
    }

    private func startedWatcher() throws -> SocketWatcher {
        let watcher = SocketWatcher()
        try #require(watcher.start())
        return watcher
    }

    @Test func aPeerThatClosesIsReportedAsAHangUp() throws {
        let watcher = try startedWatcher()
        defer { try? watcher.stop() }
        let pair = try SocketPair()
        let handler = RecordingHandler()
        try #require(watcher.watch(handler, socket: pair.watched, for: .hangUp) != nil)
        pair.closePeer()
        let report = handler.reports.next(timeout: .seconds(5))
        #expect(report?.contains(.hangUp) == true)
    }

    @Test func roomInTheSendBufferIsReportedAsWritable() throws {
        let watcher = try startedWatcher()
        defer { try? watcher.stop() }
        let pair = try SocketPair()
        pair.fillWatchedSendBuffer()
        let handler = RecordingHandler()
        let token = try #require(watcher.watch(handler, socket: pair.watched, for: [.writable, .hangUp]))
        defer { watcher.unwatch(token, socket: pair.watched) }
        pair.drainPeer()
        #expect(handler.reports.next(timeout: .seconds(5)) == .writable)
    }

    @Test func aWatchFiresOnceUntilRearmed() throws {
        let watcher = try startedWatcher()
        defer { try? watcher.stop() }
        let pair = try SocketPair()
        let handler = RecordingHandler()
        // An empty send buffer is writable at once, and stays writable (level-triggered).
        let token = try #require(watcher.watch(handler, socket: pair.watched, for: .writable))
        defer { watcher.unwatch(token, socket: pair.watched) }
        #expect(handler.reports.next(timeout: .seconds(5)) == .writable)
        #expect(handler.reports.next(timeout: .milliseconds(200)) == nil, "one-shot: no second report")
        #expect(watcher.rearm(token, socket: pair.watched, for: .writable))
        #expect(handler.reports.next(timeout: .seconds(5)) == .writable)
    }

    @Test func anUnwatchedSocketIsNotReportedAndItsHandlerIsReleased() throws {
        let watcher = try startedWatcher()
        defer { try? watcher.stop() }
        let pair = try SocketPair()
        let reports = Mailbox<SocketInterest>()
        weak var released: RecordingHandler?
        do {
            let handler = RecordingHandler(reports: reports)
            released = handler
            let token = try #require(watcher.watch(handler, socket: pair.watched, for: .hangUp))
            watcher.unwatch(token, socket: pair.watched)
        }
        #expect(released == nil, "the watcher kept no reference after unwatch")
        pair.closePeer()
        #expect(reports.next(timeout: .milliseconds(200)) == nil)
    }

    @Test func stopReleasesEveryHandlerAndLaterWatchesFail() throws {
        let watcher = try startedWatcher()
        let pair = try SocketPair()
        weak var released: RecordingHandler?
        do {
            let handler = RecordingHandler()
            released = handler
            _ = try #require(watcher.watch(handler, socket: pair.watched, for: .hangUp))
        }
        #expect(released != nil, "a watched handler is kept")
        try watcher.stop()
        #expect(released == nil)
        #expect(watcher.watch(RecordingHandler(), socket: pair.watched, for: .hangUp) == nil)
    }

    @Test func tokensAreNeverReused() throws {
        let watcher = try startedWatcher()
        defer { try? watcher.stop() }
        let handler = RecordingHandler()
        var tokens: Set<UInt64> = []
        for _ in 0..<100 {
            let pair = try SocketPair()
            let token = try #require(watcher.watch(handler, socket: pair.watched, for: .hangUp))
            tokens.insert(token)
            watcher.unwatch(token, socket: pair.watched)
        }
        #expect(tokens.count == 100)
    }
}
