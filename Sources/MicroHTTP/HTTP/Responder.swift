/// Turns a request into a response; called on libmicrohttpd worker threads, concurrently.
///
/// Implementations must be thread-safe and should not block: a blocked call holds one of
/// the server's few worker threads and every connection it serves.
public protocol Responder: Sendable {
    /// The response to a fully received request.
    func respond(to request: Request) -> Response

    /// Response for a request the server refused before routing (body too large, etc.), with
    /// the request's head (libmicrohttpd reads it whole before any refusal). Default impl: plain text.
    func respond(to failure: RequestFailure, method: HTTPMethod, path: String, headers: HTTPHeaders) -> Response
}

extension Responder {
    /// The default refusal: the failure's status with its message as plain text.
    public func respond(to failure: RequestFailure, method: HTTPMethod, path: String, headers: HTTPHeaders) -> Response {
        .text(failure.message + "\n", status: failure.status)
    }
}
