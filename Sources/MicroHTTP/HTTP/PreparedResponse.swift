/// A complete response made into libmicrohttpd's form once and sent as it is to many requests:
/// its head's fields are copied into libmicrohttpd and checked there once, not for every
/// request, and nothing is allocated or freed per request when it is sent.
///
/// A server keeps one for an answer that many requests get unchanged — `GET /state` of one
/// version of a store — and hands it out in ``Response/prepared``. libmicrohttpd counts the
/// connections a response is queued on, so one prepared response may be in flight on many
/// connections at once, and outlive this object until the last of them has sent it.
///
/// The response it was made from is kept: a layer that changes a response after it was
/// prepared (adds a CORS field, replaces the body) sends the changed one, built again as every
/// other response (``ResponseWriter``).
public final class PreparedResponse: @unchecked Sendable {
    // Sendable: every stored property is immutable, and libmicrohttpd guards a response's
    // reference count with its own mutex when connections on several threads queue it.

    /// The status it was made with.
    public let status: Int
    /// The fields it was made with.
    public let headers: HTTPHeaders
    /// The body it was made with.
    public let bytes: [UInt8]
    /// libmicrohttpd's response; this object holds one reference to it.
    let handle: OpaquePointer

    /// Makes `status`, `headers` and `bytes` into a response libmicrohttpd can send many times;
    /// nil when libmicrohttpd cannot allocate it or refuses a field (send the response the
    /// usual way then: it leaves such a field out and says so).
    public init?(status: Int, headers: HTTPHeaders, bytes: [UInt8]) {
        guard (200...999).contains(status),
              let handle = ResponseWriter.makeBufferResponse(bytes),
              ResponseWriter.addFields(headers, to: handle) else {
            return nil
        }
        self.status = status
        self.headers = headers
        self.bytes = bytes
        self.handle = handle
    }

    deinit {
        ResponseWriter.release(handle)
    }

    /// Whether `response` is still the response this was made from (same status, fields and
    /// body): strings and arrays compare their storage first, so a response nobody changed
    /// answers in a few comparisons.
    func isUnchanged(_ response: Response) -> Bool {
        guard response.status == status, response.headers == headers, case .bytes(let body) = response.body else {
            return false
        }
        return body == bytes
    }
}

extension Response {
    /// This response with ``prepared`` set: a response with a complete body, made into
    /// libmicrohttpd's form now so that each request it answers skips that work. Unchanged when
    /// the body is not complete bytes or libmicrohttpd cannot make it.
    public func preparedForReuse() -> Response {
        guard case .bytes(let bytes) = body,
              let prepared = PreparedResponse(status: status, headers: headers, bytes: bytes) else {
            return self
        }
        var response = self
        response.prepared = prepared
        return response
    }
}
