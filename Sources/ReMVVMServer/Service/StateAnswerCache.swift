import ConcurrencyKit
import MicroHTTP

/// `GET /state`'s answer for the newest version asked for: its `ETag` and the whole `200`
/// response, made once per version and already in libmicrohttpd's form
/// (``MicroHTTP/Response/preparedForReuse()``), so that every read of a version after the first
/// skips the tag's text, the response's fields and libmicrohttpd's copies of them.
final class StateAnswerCache: Sendable {
    /// One version's answer. A class: every `GET /state` takes it out of the lock, and a
    /// reference is retained where a struct holding a response was copied field by field.
    final class Answer: Sendable {
        /// The version answered.
        let version: UInt64
        /// Its entity tag.
        let etag: String
        /// The `200` response with the state's JSON.
        let response: Response

        init(version: UInt64, etag: String, response: Response) {
            self.version = version
            self.etag = etag
            self.response = response
        }
    }

    private let latest = Lock<Answer?>(nil)

    /// The answer for `version`, if it is the one kept.
    func answer(for version: UInt64) -> Answer? {
        latest.withLock { latest in
            guard let latest, latest.version == version else { return nil }
            return latest
        }
    }

    /// Keeps `answer` unless a newer version's is kept.
    func remember(_ answer: Answer) {
        latest.withLock { latest in
            if latest.map({ $0.version <= answer.version }) ?? true {
                latest = answer
            }
        }
    }
}
