import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `POST /actions`: one action or a batch; 200 with the version, 202, or a problem. With
    /// `If-Match`, only at that version (else 412); with `Idempotency-Key`, at most once (a retry
    /// gets the kept answer with `Idempotent-Replayed: true`).
    func postActions(_ request: Request, in served: ServedStore<State>) -> Response {
        switch actions(of: request) {
        case .success(let actions):
            return served.dispatchRequest(request, fingerprintPath: "/actions") { _ in .dispatch(actions) }
        case .failure(let problem):
            return problem.response
        }
    }

    /// What refuses a `POST /actions` before any store is involved (its `Content-Type`, its body,
    /// its `Idempotency-Key`), or nil: asked before a write creates a store (`autoCreateStores`).
    func refusalOfActions(_ request: Request) -> Response? {
        if case .failure(let problem) = actions(of: request) { return problem.response }
        return Self.refusalOfIdempotencyKey(request)
    }

    /// The actions of a `POST /actions` body, or the problem that refuses them.
    private func actions(of request: Request) -> Result<[any StoreAction], Problem> {
        guard Self.isJSON(request.headers[.contentType]) else {
            return .failure(.unsupportedMediaType(request.headers[.contentType]))
        }
        do {
            return .success(try actionDecoder.decode(request.body))
        } catch {
            logger.debug("refused actions: \(error.message)")
            return .failure(error.problem)
        }
    }

    /// `400` for an `Idempotency-Key` field that is not a key, else nil (``ServedStore/dispatchRequest(_:fingerprintPath:plan:)``
    /// refuses it the same way, once a store is found).
    static func refusalOfIdempotencyKey(_ request: Request) -> Response? {
        guard let header = request.headers[.idempotencyKey], !IdempotencyKey.isWellFormed(header) else { return nil }
        return Problem.invalidIdempotencyKey.response
    }

    /// Whether a Content-Type names JSON: `application/json` or `application/<x>+json`, any case, any
    /// parameters. Compares bytes with static strings: this runs on every POST (Foundation's
    /// string helpers bridge, and arrays made from literals were three allocations per call).
    ///
    /// `application/json` exactly, as almost every client sends it, is told first by its two
    /// halves' words (the byte-wise parse of it cost about 265 instructions).
    static func isJSON(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        return contentType.withUTF8 { bytes in
            if bytes.count == 16, let start = bytes.baseAddress {
                let json: StaticString = "application/json"
                let raw = UnsafeRawPointer(start)
                let expected = UnsafeRawPointer(json.utf8Start)
                if raw.loadUnaligned(as: UInt64.self) == expected.loadUnaligned(as: UInt64.self),
                   raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == expected.loadUnaligned(fromByteOffset: 8, as: UInt64.self) {
                    return true
                }
            }
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            while end > bytes.startIndex, isBlank(bytes[end - 1]) { end -= 1 }
            var start = bytes.startIndex
            while start < end, isBlank(bytes[start]) { start += 1 }
            let mediaType = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let prefix: StaticString = "application/"
            guard mediaType.count > prefix.utf8CodeUnitCount, matches(mediaType.prefix(prefix.utf8CodeUnitCount), prefix) else {
                return false
            }
            let json: StaticString = "application/json"
            let suffix: StaticString = "+json"
            return (mediaType.count == json.utf8CodeUnitCount && matches(mediaType[...], json))
                || (mediaType.count > prefix.utf8CodeUnitCount + suffix.utf8CodeUnitCount
                    && matches(mediaType.suffix(suffix.utf8CodeUnitCount), suffix))
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// Whether `bytes` spell `lowercased` (a lowercase ASCII literal of the same length) in any case.
    private static func matches(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercased: StaticString) -> Bool {
        guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
        var wanted = lowercased.utf8Start
        for byte in bytes {
            let folded = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            guard folded == wanted.pointee else { return false }
            wanted += 1
        }
        return true
    }
}
