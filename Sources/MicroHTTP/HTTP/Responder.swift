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

    /// The header fields a request may carry at most once (matched ignoring case; at most 64). A
    /// request carrying one of them twice is answered `400` naming the field, before
    /// ``respond(to:)``; a list of values in one field is not a repeat. Read once, when the
    /// server starts. Default: none (`Host` and `Content-Length` are always checked).
    var singleFieldNames: [String] { get }

    /// Whether requests carry their connection's ``ConnectionMemo`` (``Request/connectionMemo``);
    /// read once, when the server starts. Default: false, and looking it up costs nothing then.
    var usesConnectionMemos: Bool { get }
}

extension Responder {
    /// No fields besides `Host` and `Content-Length` are checked for repeats.
    public var singleFieldNames: [String] { [] }

    /// No connection memos.
    public var usesConnectionMemos: Bool { false }

    /// The default refusal: the failure's status with its message as plain text.
    public func respond(to failure: RequestFailure, method: HTTPMethod, path: String, headers: HTTPHeaders) -> Response {
        .text(failure.message + "\n", status: failure.status)
    }
}
