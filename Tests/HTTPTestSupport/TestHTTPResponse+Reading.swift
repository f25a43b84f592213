public import Testing

extension TestHTTPResponse {
    /// The body decoded as UTF-8.
    public var bodyString: String {
        String(decoding: body, as: UTF8.self)
    }

    /// Expects the status and the `Content-Type` of the answer (the body names what went wrong
    /// when the status is not the one expected); returns the answer for the checks that follow.
    @discardableResult
    public func expect(
        status expected: Int, contentType: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> TestHTTPResponse {
        #expect(status == expected, "\(bodyString)", sourceLocation: sourceLocation)
        #expect(headers["Content-Type"] == contentType, sourceLocation: sourceLocation)
        return self
    }
}
