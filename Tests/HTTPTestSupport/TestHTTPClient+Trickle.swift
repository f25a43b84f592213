extension TestHTTPClient {
    /// Sends `bytes` one at a time, waiting up to `gap` for the server to close the connection
    /// after each (a byte every `gap` keeps libmicrohttpd's idle timeout from ever firing), until
    /// it closes or `limit` has passed. Returns whether it closed, and after how long.
    public func trickle(_ bytes: [UInt8], gap: Duration = .milliseconds(50), limit: Duration = .seconds(5)) -> (closed: Bool, after: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        for byte in bytes {
            do {
                try sendRaw([byte])
            } catch {
                return (true, clock.now - start)
            }
            if waitForServerClose(timeout: gap) { return (true, clock.now - start) }
            if clock.now - start > limit { break }
        }
        return (false, clock.now - start)
    }
}
