import HTTPTestSupport
import MicroHTTP

extension Response {
    /// This response, or what it completes with when it waits (a commit, say): nil when it has
    /// not completed within `timeout`.
    func settled(timeout: Duration = .seconds(30)) -> Response? {
        guard case .pending(let pending) = body else { return self }
        let done = Mailbox<Response>()
        pending.whenCompleted { done.post($0) }
        return done.next(timeout: timeout)
    }

    /// The bytes of a complete body (empty for a stream or a pending one).
    var completeBodyBytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
}
