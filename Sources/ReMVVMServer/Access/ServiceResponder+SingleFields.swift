import MicroHTTP

extension ServiceResponder {
    /// The header fields a request may carry once; a request with two of one is answered `400`
    /// naming the field, before routing (MicroHTTP checks while it gathers the head's fields).
    ///
    /// Each is read as one value, and a second field would otherwise be ignored (the first
    /// wins) or joined to the first: a retry carrying a new `Idempotency-Key` in a second field
    /// would run again under the first; two `Authorization`s, two `Content-Type`s or two
    /// `Last-Event-ID`s leave unclear which one was meant. `If-Match` may hold a list of entity
    /// tags, but in one field (RFC 9110 §13.1.1 defines it as a list, and §5.3 lets a recipient
    /// join several fields into one): this server takes the precondition of a write from one
    /// field, so that what it checks is exactly what the client sent, and refuses two rather than
    /// guess whether a proxy or the client added the second (docs/http-api.md).
    public var singleFieldNames: [String] {
        ["Idempotency-Key", "If-Match", "Last-Event-ID", "Content-Type", "Authorization"]
    }
}
