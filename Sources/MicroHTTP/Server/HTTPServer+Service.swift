import ConcurrencyKit
public import ServiceLifecycle

extension HTTPServer: Service {
    /// Serves until graceful shutdown (in a `ServiceGroup`: SIGTERM or SIGINT) or cancellation,
    /// then stops as ``shutdown(timeout:)`` does, within the configuration's `shutdownTimeout`.
    ///
    /// Starts the server unless its owner started it already (to log the bound port, say); returns
    /// at once if it was stopped before.
    public func run() async throws {
        guard try startIfIdle() else { return }
        do {
            try await gracefulShutdown()
            core.logger.info("graceful shutdown: refusing new requests, finishing running ones and the event streams")
        } catch {
            core.logger.info("cancelled: stopping the HTTP server")
        }
        await runOnOwnThread { [self] in shutdown(timeout: shutdownTimeout) }
    }

    /// Waits until the server listens (``port`` is then the bound port), e.g. after handing it to
    /// a `ServiceGroup`; false if it stopped first or `timeout` passed.
    public func waitUntilListening(timeout: Duration) async -> Bool {
        await runOnOwnThread { [self] in waitUntilRunningOrStopped(timeout: timeout) }
    }
}
