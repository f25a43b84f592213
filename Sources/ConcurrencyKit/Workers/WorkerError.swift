/// Why a ``Worker``, a ``WorkerPool`` or a ``SerialLane`` could not do what was asked: it could not
/// start a thread, or a stop did not finish in time (the thread goes on; nobody waits for it).
package struct WorkerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package enum Code: Sendable, Equatable {
        /// The system refused a new thread (`pthread_create` failed: out of memory or of threads).
        case threadRefused
        /// The work did not end within the stop's timeout.
        case stopTimedOut
    }

    /// What went wrong.
    package let code: Code
    /// The name of the worker, pool or lane.
    package let name: String
    /// The timeout that passed, for ``Code/stopTimedOut``.
    package let timeout: Duration?

    /// An error of `code` for the worker (pool, lane) named `name`.
    package init(_ code: Code, name: String, timeout: Duration? = nil) {
        self.code = code
        self.name = name
        self.timeout = timeout
    }

    /// What happened, naming the worker.
    package var description: String {
        switch code {
        case .threadRefused:
            "worker \(name): the system refused a new thread"
        case .stopTimedOut:
            "worker \(name): still running \(timeout.map { "\($0)" } ?? "a while") after it was asked to stop; left running, not waited for"
        }
    }
}
