extension JWTVerifier {
    /// Verifies the token in `token`: its segments, header, signature, then claims.
    func verify(bytes token: UnsafeBufferPointer<UInt8>) -> Result<VerifiedToken, TokenRejection> {
        let dot = UInt8(ascii: ".")
        guard let firstDot = token.firstIndex(of: dot),
              let secondDot = token[(firstDot + 1)...].firstIndex(of: dot),
              !token[(secondDot + 1)...].contains(dot)
        else { return .failure(Self.segments) }

        let headerText = UnsafeBufferPointer(rebasing: token[..<firstDot])
        let payloadText = UnsafeBufferPointer(rebasing: token[(firstDot + 1)..<secondDot])
        let signatureText = UnsafeBufferPointer(rebasing: token[(secondDot + 1)...])
        // An empty signature is left to fail verification, so that `alg: none` is named as such.
        guard !headerText.isEmpty, !payloadText.isEmpty else { return .failure(Self.segments) }

        let key: JWTKey
        switch Self.decoding(headerText, { readHeader($0) }) {
        case .success(let found): key = found
        case .failure(let rejection): return .failure(rejection)
        }

        // The payload is decoded first (a malformed segment is named as such), read only once
        // the signature has verified.
        let signingInput = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: token[..<secondDot]))
        return Self.decoding(payloadText) { payload in
            let signed = Self.decoding(signatureText) { signature in
                key.isValidSignature(UnsafeRawBufferPointer(signature), for: signingInput)
                    ? .success(()) : .failure(Self.badSignature)
            }
            if case .failure(let rejection) = signed { return .failure(rejection) }
            return readClaims(payload)
        }
    }

    /// Decodes one base64url segment into temporary memory (on the stack when small) and reads it.
    static func decoding<Value>(
        _ text: UnsafeBufferPointer<UInt8>,
        _ read: (UnsafeBufferPointer<UInt8>) -> Result<Value, TokenRejection>
    ) -> Result<Value, TokenRejection> {
        guard let count = Base64URL.decodedCount(ofEncodedCount: text.count) else { return .failure(badBase64) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 1)) { buffer in
            let output = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            guard Base64URL.decode(text, into: output) else { return .failure(badBase64) }
            return read(UnsafeBufferPointer(output))
        }
    }

    /// The configured key the header's `alg` names, after checking the header's shape.
    func readHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JWTKey, TokenRejection> {
        var scanner = JSONObjectScanner(bytes)
        var algorithm: JSONObjectScanner.StringSlice?
        var sawAlgorithm = false
        var sawCritical = false
        scan: while true {
            switch scanner.next() {
            case .malformed:
                return .failure(scanner.repeatsAName ? Self.repeatedMember : Self.badHeader)
            case .end:
                break scan
            case .member(let name, let value):
                if name.equals("alg".utf8) {
                    guard !sawAlgorithm else { return .failure(Self.repeatedMember) }
                    sawAlgorithm = true
                    guard case .string(let text) = value else { return .failure(Self.noAlgorithm) }
                    algorithm = text
                } else if name.equals("crit".utf8) {
                    sawCritical = true
                }
            }
        }
        guard !sawCritical else { return .failure(Self.critical) }
        guard let algorithm else { return .failure(Self.noAlgorithm) }
        let unescaped = algorithm.hasEscapes ? algorithm.unescaped() : nil
        return unescaped.map(key(forAlgorithmNamed:)) ?? key(forAlgorithmNamed: algorithm.raw)
    }

    private func key(forAlgorithmNamed name: some Collection<UInt8>) -> Result<JWTKey, TokenRejection> {
        if name.lazy.map({ $0 | 0x20 }).elementsEqual("none".utf8) { return .failure(Self.unsigned) }
        guard let algorithm = JWTAlgorithm.named(name), let key = key(for: algorithm) else {
            return .failure(Self.otherAlgorithm)
        }
        return .success(key)
    }

    static let segments = TokenRejection(.malformedToken, "a JWT must be three segments separated by dots, header and payload not empty")
    static let badBase64 = TokenRejection(.malformedToken, "a JWT segment is not base64url without padding")
    static let badHeader = TokenRejection(.malformedToken, "the JWT header is not a JSON object")
    static let repeatedMember = TokenRejection(.malformedToken, "the JWT repeats a header parameter or claim")
    static let noAlgorithm = TokenRejection(.unsupportedAlgorithm, "the JWT header has no alg string")
    static let unsigned = TokenRejection(.unsupportedAlgorithm, "unsigned JWTs (alg none) are refused")
    static let otherAlgorithm = TokenRejection(.unsupportedAlgorithm, "the JWT alg is not an algorithm this server is configured for")
    static let critical = TokenRejection(.criticalHeader, "the JWT header has crit extensions, which are not supported")
    static let badSignature = TokenRejection(.invalidSignature, "the JWT signature does not verify")
}
