import ConcurrencyKit
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A unix-socket proxy in front of a ``PostgresServer`` that can lose the answer to one `COMMIT`:
/// for tests of what a client does when its connection breaks while its `COMMIT` is on its way —
/// after the server committed (``Loss/afterTheServerAnswered``) or before the server got it
/// (``Loss/beforeTheServer``). Reads the protocol's message frames (a type byte and a length),
/// nothing more: the startup message, then typed messages both ways.
public final class PostgresProxy: Sendable {
    /// When the answer of the armed `COMMIT` is lost.
    public enum Loss: Sendable {
        /// The `COMMIT` is not forwarded: the server sees its client go away, and rolls back.
        case beforeTheServer
        /// The `COMMIT` is forwarded; the server's answer up to `ReadyForQuery` is read and
        /// dropped, then both connections are closed: the server committed (or said why not,
        /// ``lostAnswer``), the client never hears it.
        case afterTheServerAnswered
    }

    private struct State {
        var armed: (marker: [UInt8], loss: Loss)?
        /// The type of the first message the server answered the lost `COMMIT` with (`C`: the
        /// command completed, `E`: an error), once lost.
        var lostAnswer: UInt8?
        var lost = false
        /// Whether connections made from now on are closed at once (set once lost, if asked).
        var refusing = false
        var refuseOnceLost = false
    }

    /// The directory of the proxy's unix socket (pass it as `host`).
    public let directory: String
    private let target: String
    private let listener: Int32
    private let state = Lock(State())

    /// A libpq connection string to the proxy, otherwise as `server`'s.
    public let conninfo: String

    /// Starts listening in front of `server` (its socket `.s.PGSQL.<port>`).
    public init(to server: PostgresServer) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-pgproxy-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        target = "\(server.socketDirectory)/.s.PGSQL.\(server.port)"
        conninfo = "host=\(directory) port=\(server.port) user=postgres dbname=postgres connect_timeout=15"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0, Self.withAddress("\(directory)/.s.PGSQL.\(server.port)", { bind(listener, $0, $1) }) == 0,
              listen(listener, 16) == 0 else {
            throw PostgresServerError("the proxy cannot listen in \(directory) (errno \(errno))")
        }
        let target = self.target, state = self.state
        guard let thread = startThread(named: "pg-proxy", { Self.acceptLoop(on: listener, forwardingTo: target, state) }) else {
            throw PostgresServerError("the proxy's thread did not start")
        }
        pthread_detach(thread)
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Loses the answer of the next `COMMIT` on a connection that sent a message containing
    /// `marker` (a statement's text) since it connected, as `loss` says; with
    /// `thenRefuseConnections`, connections made after the loss are closed at once (PostgreSQL
    /// looks gone to a client reading back what happened).
    public func loseNextCommit(after marker: String, _ loss: Loss, thenRefuseConnections: Bool = false) {
        state.withLock {
            $0.armed = (Array(marker.utf8), loss)
            $0.refuseOnceLost = thenRefuseConnections
        }
    }

    /// Waits until the armed `COMMIT` was lost; returns the type of the server's first answer to
    /// it (`C` committed, `E` failed; nil: not forwarded), or nil after `timeout`.
    public func waitUntilLost(timeout: Duration) -> (lost: Bool, answer: Character?) {
        let lost = state.wait(timeout: timeout) { $0.lost }
        return (lost, state.withLock { $0.lostAnswer.map { Character(Unicode.Scalar($0)) } })
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func acceptLoop(on listener: Int32, forwardingTo target: String, _ state: Lock<State>) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }  // closed
            if state.withLock({ $0.refusing }) {
                close(client)
                continue
            }
            let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard server >= 0, withAddress(target, { connect(server, $0, $1) }) == 0 else {
                close(client)
                continue
            }
            let dropping = Lock(false), ended = Lock(0)
            // The second pump to end closes both sockets.
            let end: @Sendable () -> Void = {
                guard ended.withLock({ $0 += 1; return $0 }) == 2 else { return }
                close(client)
                close(server)
            }
            let up = startThread(named: "pg-proxy-up") { pumpUp(from: client, to: server, dropping, state); end() }
            let down = startThread(named: "pg-proxy-down") { pumpDown(from: server, to: client, dropping, state); end() }
            for thread in [up, down].compactMap({ $0 }) { pthread_detach(thread) }
        }
    }

    /// Client to server: watches for the marker, then for the `COMMIT` to lose.
    private static func pumpUp(from client: Int32, to server: Int32, _ dropping: Lock<Bool>, _ state: Lock<State>) {
        var frames = Frames(typed: false)
        var sawMarker = false
        defer { shutdown(server, Int32(SHUT_RDWR)) }
        while let messages = frames.read(client) {
            for message in messages {
                let armed = state.withLock { $0.armed }
                if let armed, !sawMarker, message.firstRange(of: armed.marker) != nil { sawMarker = true }
                if let armed, sawMarker, message.first == UInt8(ascii: "Q"), message.dropFirst(5).starts(with: Array("COMMIT".utf8)) {
                    state.withLock { $0.armed = nil }
                    switch armed.loss {
                    case .beforeTheServer:
                        markLost(state)
                        shutdown(client, Int32(SHUT_RDWR))
                        return
                    case .afterTheServerAnswered:
                        dropping.withLock { $0 = true }
                    }
                }
                guard sendAll(server, message) else { return }
            }
        }
    }

    /// Server to client: forwards until dropping, then drops through `ReadyForQuery` and closes.
    private static func pumpDown(from server: Int32, to client: Int32, _ dropping: Lock<Bool>, _ state: Lock<State>) {
        var frames = Frames(typed: true)
        defer { shutdown(client, Int32(SHUT_RDWR)) }
        while let messages = frames.read(server) {
            for message in messages {
                if dropping.withLock({ $0 }) {
                    state.withLock { $0.lostAnswer = $0.lostAnswer ?? message.first }
                    guard message.first == UInt8(ascii: "Z") else { continue }
                    markLost(state)
                    shutdown(server, Int32(SHUT_RDWR))
                    return
                }
                guard sendAll(client, message) else { return }
            }
        }
    }

    /// Marks the armed `COMMIT` lost (refusing connections from now on, if asked).
    private static func markLost(_ state: Lock<State>) {
        state.withLock {
            $0.lost = true
            $0.refusing = $0.refuseOnceLost
        }
        state.notifyAll()
    }

    private static func sendAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// Splits a stream into protocol messages: the first untyped (a length, then its body) unless
    /// `typed`, then each a type byte and a length that counts itself.
    private struct Frames {
        var typed: Bool
        var buffer: [UInt8] = []

        /// The messages complete after one read; nil at the end of the stream.
        mutating func read(_ socket: Int32) -> [[UInt8]]? {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
            var messages: [[UInt8]] = []
            while true {
                let header = typed ? 1 : 0
                guard buffer.count >= header + 4 else { break }
                let length = buffer[header..<header + 4].reduce(0) { $0 << 8 | Int($1) }
                guard buffer.count >= header + length else { break }
                messages.append(Array(buffer[..<(header + length)]))
                buffer.removeFirst(header + length)
                typed = true
            }
            return messages
        }
    }
}
