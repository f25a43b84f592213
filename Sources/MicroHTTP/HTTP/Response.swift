/// An HTTP response: status, header fields and a body that is either bytes or an endless stream.
public struct Response: Sendable {
    /// What follows the response head.
    public enum Body: Sendable {
        /// A complete body, sent with a `Content-Length` (omitted on the wire for `HEAD`).
        case bytes([UInt8])
        /// An open-ended body fed by an ``EventStream`` (sent chunked), e.g. server-sent events.
        case stream(EventStream)
        /// The whole response comes later (``Response/init(pending:)``); status and headers of
        /// this one are ignored.
        case pending(PendingResponse)
    }

    /// The status code, e.g. `200`; values outside 200...999 are replaced by 500 when sent.
    public var status: Int
    /// The header fields; `Content-Length`, `Transfer-Encoding` and `Date` are managed by the server.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body
    /// The same response already in libmicrohttpd's form (``preparedForReuse()``), sent instead
    /// of building it again while status, fields and body are still the ones it was made from.
    public var prepared: PreparedResponse?

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension Response {
    /// A `text/plain; charset=utf-8` response with `text` as its body.
    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(
            status: status,
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: .bytes(Array(text.utf8))
        )
    }
}
