import Crypto
import _CryptoExtras

extension JWTKey {
    /// Whether `signature` (decoded from the token's third segment) signs `input` (the token's
    /// first two segments and the dot between them) under this key's one algorithm.
    func isValidSignature(_ signature: UnsafeRawBufferPointer, for input: UnsafeRawBufferPointer) -> Bool {
        switch material {
        case .hmac(let keyed):
            // What `HMAC.isValidAuthenticationCode` does, minus its per-call key schedule (half
            // the cost, measured): continue the keyed state, then swift-crypto's `==` between a
            // MAC and bytes, which is the same constant-time `safeCompare` over the full length.
            var authenticator = keyed
            authenticator.update(data: input)
            return authenticator.finalize() == signature
        case .p256(let key):
            // JWS carries R || S, 32 bytes each (RFC 7518 §3.4), not DER.
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: input)
        case .rsa(let key):
            let rsa = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(rsa, for: input, padding: .insecurePKCS1v1_5)
        }
    }
}
