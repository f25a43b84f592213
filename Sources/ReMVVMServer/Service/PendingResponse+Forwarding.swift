import MicroHTTP

extension PendingResponse {
    /// Completes this response with `response`, or, when `response` is pending itself, with what
    /// it completes with.
    func complete(forwarding response: Response) {
        if case .pending(let inner) = response.body {
            inner.whenCompleted { self.complete($0) }
        } else {
            complete(response)
        }
    }
}
