extension HTTPHeaders {
    /// A header field name the server reads on most requests. Looked up through one of these, a
    /// field a request does not carry is found absent by a bit test: a request's headers note
    /// which known names they hold as libmicrohttpd hands them over (in any case).
    public struct KnownName: Sendable, Equatable {
        /// The name as usually spelled.
        public let text: String
        /// Its bit in ``HTTPHeaders``' note of the known names it holds.
        let bit: UInt32

        /// Computed, not stored statics: a stored one is read through a one-time initializer
        /// check at every use, and the reader asks for these bits for every field.
        private init(_ text: String, bit: Int) {
            self.text = text
            self.bit = 1 << UInt32(bit)
        }

        /// `Host`.
        public static var host: KnownName { KnownName("Host", bit: 0) }
        /// `Accept`.
        public static var accept: KnownName { KnownName("Accept", bit: 1) }
        /// `Origin`.
        public static var origin: KnownName { KnownName("Origin", bit: 2) }
        /// `Cookie`.
        public static var cookie: KnownName { KnownName("Cookie", bit: 3) }
        /// `If-Match`.
        public static var ifMatch: KnownName { KnownName("If-Match", bit: 4) }
        /// `User-Agent`.
        public static var userAgent: KnownName { KnownName("User-Agent", bit: 5) }
        /// `Connection`.
        public static var connection: KnownName { KnownName("Connection", bit: 6) }
        /// `Content-Type`.
        public static var contentType: KnownName { KnownName("Content-Type", bit: 7) }
        /// `Authorization`.
        public static var authorization: KnownName { KnownName("Authorization", bit: 8) }
        /// `If-None-Match`.
        public static var ifNoneMatch: KnownName { KnownName("If-None-Match", bit: 9) }
        /// `Last-Event-ID`.
        public static var lastEventID: KnownName { KnownName("Last-Event-ID", bit: 10) }
        /// `Content-Length`.
        public static var contentLength: KnownName { KnownName("Content-Length", bit: 11) }
        /// `Sec-Fetch-Site`.
        public static var secFetchSite: KnownName { KnownName("Sec-Fetch-Site", bit: 12) }
        /// `Accept-Encoding`.
        public static var acceptEncoding: KnownName { KnownName("Accept-Encoding", bit: 13) }
        /// `Idempotency-Key`.
        public static var idempotencyKey: KnownName { KnownName("Idempotency-Key", bit: 14) }
        /// `Access-Control-Request-Method`.
        public static var accessControlRequestMethod: KnownName { KnownName("Access-Control-Request-Method", bit: 15) }
    }

    /// Whether a field named `name` may be present: false only when these headers know they hold
    /// none (made from a request's head and not changed since).
    func mayHold(_ name: KnownName) -> Bool {
        knownNames & name.bit != 0
    }

    /// The first value of the field `name` (any case), or nil when absent.
    public subscript(_ name: KnownName) -> String? {
        guard mayHold(name) else { return nil }
        guard fieldsKnowTheirNames else { return self[name.text] }
        return firstIndex(ofKnown: name.bit).map(value(at:))
    }

    /// ``firstValue(named:)`` for a known name.
    public func firstValue(named name: KnownName) -> (value: String, isRepeated: Bool)? {
        guard mayHold(name) else { return nil }
        guard fieldsKnowTheirNames else { return firstValue(named: name.text) }
        return firstIndexAndRepeat(ofKnown: name.bit).map { (value(at: $0.index), $0.isRepeated) }
    }

    /// ``values(for:)`` for a known name.
    public func values(for name: KnownName) -> [String] {
        mayHold(name) ? values(for: name.text) : []
    }

    /// ``list(_:)`` for a known name.
    public func list(_ name: KnownName) -> String? {
        mayHold(name) ? list(name.text) : nil
    }

    /// ``contains(_:)`` for a known name: for a request's head the bit alone tells.
    public func contains(_ name: KnownName) -> Bool {
        mayHold(name) && (fieldsKnowTheirNames || contains(name.text))
    }
}
