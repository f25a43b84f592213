import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `POST /actions`: one action or a batch; 200 with the version, 202, or a problem. With
    /// `If-Match`, only at that version (else 412); with `Idempotency-Key`, at most once (a retry
    /// gets the kept answer with `Idempotent-Replayed: true`).
    func postActions(_ request: Request, in served: ServedStore<State>) -> Response {
        guard Self.isJSON(request.headers["Content-Type"]) else {
            return Problem.unsupportedMediaType(request.headers["Content-Type"]).response
        }
        let actions: [any StoreAction]
        do {
            actions = try actionDecoder.decode(request.body)
        } catch {
            logger.debug("refused actions: \(error.message)")
            return error.problem.response
        }
        return served.dispatchRequest(request, fingerprintPath: "/actions") { _ in .dispatch(actions) }
    }

    /// Whether a Content-Type names JSON: `application/json` or `application/<x>+json`, any case, any
    /// parameters. Compares bytes: this runs on every POST, and Foundation's string helpers bridge.
    static func isJSON(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        return contentType.withUTF8 { bytes in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            while end > bytes.startIndex, isBlank(bytes[end - 1]) { end -= 1 }
            var start = bytes.startIndex
            while start < end, isBlank(bytes[start]) { start += 1 }
            let mediaType = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let prefix = Array("application/".utf8)
            guard mediaType.count > prefix.count, hasPrefix(mediaType, prefix) else { return false }
            return equalsIgnoringCase(mediaType, Array("application/json".utf8))
                || (mediaType.count > prefix.count + 5 && hasSuffix(mediaType, Array("+json".utf8)))
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercased: [UInt8]) -> Bool {
        bytes.count == lowercased.count && hasPrefix(bytes, lowercased)
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercased: [UInt8]) -> Bool {
        bytes.count >= lowercased.count && zip(bytes, lowercased).allSatisfy { lowercase($0) == $1 }
    }

    private static func hasSuffix(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercased: [UInt8]) -> Bool {
        bytes.count >= lowercased.count
            && zip(bytes.suffix(lowercased.count), lowercased).allSatisfy { lowercase($0) == $1 }
    }
}
