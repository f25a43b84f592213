import Foundation
import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `POST /actions`: one action or a batch; 200 with the version, 202, or a problem.
    func postActions(_ request: Request) -> Response {
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
        let durable = durable
        if let failure = durable?.journal.failure {
            // Nothing is acknowledged that is not durable: refuse before dispatching.
            logger.error("refusing actions while the journal fails: \(failure)")
            return Problem.journalUnavailable.response
        }
        let condition: @Sendable (UInt64) -> Bool
        if let ifMatch = request.headers["If-Match"] {
            condition = Self.condition(ifMatch: ifMatch, tags: configuration.versionTags)
        } else {
            condition = { _ in true }
        }
        switch store.dispatchAndWait(actions, if: condition) {
        case .preconditionFailed(let current):
            var problem = Problem(
                type: Problem.type("version-mismatch"),
                title: "Precondition Failed",
                status: 412,
                detail: "If-Match names a version other than the current one, \(current); nothing was applied"
            )
            problem.currentVersion = current
            problem.headers["ETag"] = configuration.versionTags.etag(current)
            return problem.response
        case .reduced(let version):
            guard let durable else {
                return JSONCoding.response(Array("{\"version\":\(version)}".utf8))
            }
            let pending = PendingResponse()
            durable.journal.whenDurable(version) { [logger] result in
                switch result {
                case .success:
                    pending.complete(JSONCoding.response(Array("{\"version\":\(version)}".utf8)))
                case .failure(let error):
                    logger.error("version \(version) is not durable: \(error)")
                    pending.complete(Problem.journalUnavailable.response)
                }
            }
            return Response(pending: pending)
        case .refused(let reason, _):
            logger.error("actions refused before the reducer: \(reason)")
            return Problem(
                type: Problem.type("action-not-journaled"),
                title: "Action cannot be journaled",
                status: 500,
                detail: reason
            ).response
        case .accepted:
            return JSONCoding.response(Array("{\"accepted\":true}".utf8), status: 202)
        case .rejected(let reason, let index):
            let position = actions.count > 1 ? "action [\(index)] was rejected: " : "the action was rejected: "
            let applied = actions.count > 1 && index > 0 ? "; the actions before it were applied" : ""
            return Problem(
                type: Problem.type("action-rejected"),
                title: "Action rejected",
                status: 422,
                detail: position + reason + applied,
                index: actions.count > 1 ? index : nil
            ).response
        }
    }

    /// What `If-Match` accepts: `*` any version; otherwise the versions its strong tags of this
    /// instance name (weak tags never match: strong comparison, RFC 9110 §13.1.1).
    static func condition(ifMatch: String, tags: VersionTags) -> @Sendable (UInt64) -> Bool {
        var versions = Set<UInt64>()
        for candidate in ifMatch.split(separator: ",") {
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return { _ in true } }
            if let version = tags.version(ofETag: Substring(tag)) {
                versions.insert(version)
            }
        }
        let accepted = versions
        return { accepted.contains($0) }
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
