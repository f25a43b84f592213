import Journal
import MicroHTTP

/// The answer to a dispatch (`POST /actions`): what the client gets, and what is kept for its
/// `Idempotency-Key` when the store decided it.
struct DispatchAnswer: Sendable {
    var status: Int
    var body: [UInt8]
    var headers: [(String, String)] = []
    /// The store version the answer names or covers (`200 {"version": N}`, a batch rejected after
    /// some of its actions were applied): it is sent once N is durable.
    var version: UInt64?
    /// Whether the store decided this answer (applied, accepted or rejected the actions): only
    /// those are kept for an idempotency key. Answers given before the store saw the actions
    /// (a failed `If-Match`, a server fault) are not: a retry is processed anew.
    var isKept: Bool

    init(status: Int, body: [UInt8], headers: [(String, String)] = [], isKept: Bool) {
        self.status = status
        self.body = body
        self.headers = headers
        self.isKept = isKept
    }

    init(problem: Problem, isKept: Bool) {
        self.init(
            status: problem.status,
            body: (try? problem.jsonBody()) ?? [],
            headers: problem.headers.sorted { $0.key < $1.key },
            isKept: isKept
        )
    }

    /// `200 {"version": N}`.
    static func applied(_ version: UInt64) -> DispatchAnswer {
        var answer = DispatchAnswer(status: 200, body: versionBody(version), isKept: true)
        answer.version = version
        return answer
    }

    /// `{"version":N}` as bytes, written in place: this is the body of nearly every `POST /actions`,
    /// and an interpolated string copied into an array cost about 1,500 instructions. Grown with
    /// `reserveCapacity` and `append`, which are specialized for bytes here:
    /// `[UInt8](unsafeUninitializedCapacity:)` is not, and looked up its storage class's metadata
    /// at run time on every call (about 330 instructions).
    static func versionBody(_ version: UInt64) -> [UInt8] {
        let prefix: StaticString = "{\"version\":"
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        let digitCount = withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var index = buffer.count
            var rest = version
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            return buffer.count - index
        }
        var body: [UInt8] = []
        body.reserveCapacity(prefix.utf8CodeUnitCount + digitCount + 1)
        // Byte by byte: `append(contentsOf:)` of a buffer or a slice went through its iterator.
        for index in 0..<prefix.utf8CodeUnitCount {
            body.append(prefix.utf8Start[index])
        }
        withUnsafeBytes(of: &digits) { buffer in
            for index in (buffer.count - digitCount)..<buffer.count {
                body.append(buffer[index])
            }
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// `202 {"accepted": true}`: middleware held the actions.
    static var accepted: DispatchAnswer {
        DispatchAnswer(status: 202, body: Array("{\"accepted\":true}".utf8), isKept: true)
    }

    /// The HTTP response; `replayed` marks an answer sent again for a retried key.
    func response(replayed: Bool = false) -> Response {
        var extra = headers
        if replayed {
            extra.append(("Idempotent-Replayed", "true"))
        }
        var response = JSONCoding.response(body, status: status, headers: extra)
        if status >= 400 {
            response.headers.replaceOrAdd(name: "Content-Type", value: "application/problem+json")
        }
        return response
    }

    /// What is kept for `key`.
    func kept(for key: IdempotencyKey, time: Int64) -> KeptAnswer {
        KeptAnswer(key: key.value, fingerprint: key.fingerprint, status: status, body: body, time: time)
    }

    /// A kept answer sent again.
    init(kept: KeptAnswer) {
        self.init(status: kept.status, body: kept.body, isKept: true)
    }
}
