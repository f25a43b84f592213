import ConcurrencyKit

/// The event streams attached to a server's connections: for heartbeats, shutdown and counting.
final class StreamRegistry: Sendable {
    private struct State: Sendable {
        var streams: [ObjectIdentifier: EventStream] = [:]
        var isClosed = false
    }

    private let state = Lock(State())
    /// Told about every stream attached or removed.
    private let changes: ChangeSignal

    init(changes: ChangeSignal) {
        self.changes = changes
    }

    /// Adds `stream`; returns `false` (and keeps nothing) once the server is shutting down.
    func insert(_ stream: EventStream) -> Bool {
        let inserted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.streams[ObjectIdentifier(stream)] = stream
            return true
        }
        if inserted { changes.changed() }
        return inserted
    }

    func remove(_ stream: EventStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
        changes.changed()
    }

    var count: Int {
        state.withLock { $0.streams.count }
    }

    /// The streams open right now.
    func snapshot() -> [EventStream] {
        state.withLock { Array($0.streams.values) }
    }

    /// Refuses further streams and returns the open ones, for shutdown.
    func close() -> [EventStream] {
        state.withLock { state in
            state.isClosed = true
            return Array(state.streams.values)
        }
    }
}
