import Foundation
import Journal
import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// The largest `limit` of `GET /actions`.
    static var actionLogMaxLimit: Int { 1_000 }

    /// `GET /actions?since=N&limit=M`: the reduced actions after version N, oldest first
    /// (`docs/http-api.md`, "Action log"): from the journal, or in memory from the newest 1,000.
    func getActions(_ request: Request, in served: ServedStore<State>) -> Response {
        let since: UInt64
        let limit: Int
        do {
            since = try Self.number(request.query["since"], name: "since", default: 0, in: 0...UInt64.max)
            limit = Int(try Self.number(request.query["limit"], name: "limit", default: 100, in: 1...UInt64(Self.actionLogMaxLimit)))
        } catch {
            return error.problem.response
        }
        let latest = served.publisher.snapshot.version
        let records: [JournalRecord]
        let earliest: UInt64?
        do {
            let page = try served.backend.actionLog(after: since, limit: limit)
            // Records not yet durable (in the journal, not committed) are not shown.
            records = page.records.filter { $0.version <= latest }
            earliest = page.earliest
        } catch where error.code == .corrupt {
            // SQLite cannot read a page (SQLITE_CORRUPT): the records after `since` cannot be
            // shown, the rest of the server goes on (docs/journal.md, "Damage").
            logger.error("the action log cannot be read after version \(since): \(error)")
            var problem = Problem.actionLogUnavailable
            problem.detail = "the action log cannot be read after version \(since): the journal is damaged there (the server log says where; remvvm-server verify reports it)"
            return problem.response
        } catch {
            // The shared log cannot be reached (or the server is stopping): an outage, not a bug.
            logger.warning("the action log cannot be read now: \(error)")
            return Problem.actionLogUnavailable.response
        }
        if let gap = Self.firstGap(in: records, after: since, earliest: earliest) {
            // Versions run without a gap in a journal: one here is damage (a store's load checks
            // only the records it replays, docs/journal.md, "Checksums"). Said, never skipped over.
            logger.error("the action log of the journal misses versions after \(since): \(gap)")
            var problem = Problem.actionLogUnavailable
            problem.detail = "the action log cannot be read after version \(since): \(gap), the journal is damaged there (remvvm-server verify reports it)"
            return problem.response
        }
        var body = Array("{\"earliest\":".utf8) + Array((earliest.map(String.init) ?? "null").utf8)
        body += Array(",\"latest\":\(latest),\"actions\":[".utf8)
        for (index, record) in records.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += Array("{\"version\":\(record.version),\"type\":".utf8)
            body += JSONCoding.string(record.type)
            body += Array(",\"payload\":".utf8)
            if let damage = record.isIntact ? Self.damage(ofPayload: record.payload) : Self.checksumDamage {
                // Shown, not spliced: one damaged record would make the whole answer unreadable.
                logger.warning("the action log's record of version \(record.version) is damaged: \(damage)")
                body += Array("null,\"damaged\":".utf8) + JSONCoding.string(damage)
            } else {
                body += record.payload.isEmpty ? Array("{}".utf8) : record.payload
            }
            body += Array(",\"time\":\"".utf8) + Array(Self.rfc3339(milliseconds: record.time).utf8) + [UInt8(ascii: "\"")]
            body.append(UInt8(ascii: "}"))
        }
        body += Array("]}".utf8)
        return JSONCoding.response(body, headers: [("Cache-Control", "no-cache")])
    }

    /// Where the versions of `records`, a page after `since`, do not follow each other from the
    /// first one expected (after `since`, or `earliest` when retention removed those before it),
    /// said as a sentence; nil when they do.
    static func firstGap(in records: [JournalRecord], after since: UInt64, earliest: UInt64?) -> String? {
        var expected = max(since &+ 1, earliest ?? 0)
        for record in records {
            guard record.version == expected else {
                return record.version > expected
                    ? "versions \(expected)...\(record.version - 1) are missing"
                    : "version \(record.version) is out of order after version \(expected - 1)"
            }
            expected &+= 1
        }
        return nil
    }

    /// Why a journaled payload is not a JSON object (a record damaged on disk, or written by
    /// another tool), or nil when it is one (or empty: an action without a payload).
    static func damage(ofPayload payload: [UInt8]) -> String? {
        guard !payload.isEmpty else { return nil }
        // The validator reads bytes, not characters: a byte that is no UTF-8 would pass into the
        // answer and make the whole page unreadable.
        guard String(validating: payload, as: UTF8.self) != nil else {
            return "its payload is not UTF-8"
        }
        do {
            try StrictJSONValidator.validate(payload)
        } catch {
            return "its payload is not JSON (\(error))"
        }
        let first = payload.first { ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains($0) }
        return first == UInt8(ascii: "{") ? nil : "its payload is JSON but not an object"
    }

    /// Why a record that does not match its checksum is shown without its payload.
    static var checksumDamage: String {
        "it does not match its checksum: bytes of it changed on disk (remvvm-server verify reports it, repair removes it)"
    }

    /// `2026-11-23T15:04:05.123Z`.
    static func rfc3339(milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            .formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A whole number query parameter within `range`, or `fallback` when absent.
    private static func number(
        _ text: String?, name: String, default fallback: UInt64, in range: ClosedRange<UInt64>
    ) throws(QueryProblem) -> UInt64 {
        guard let text else { return fallback }
        guard let value = UInt64(text), range.contains(value) else {
            throw QueryProblem(problem: Problem(
                title: "Bad Request",
                status: 400,
                detail: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"",
                field: name
            ))
        }
        return value
    }
}

/// A query parameter out of its range.
struct QueryProblem: Error {
    let problem: Problem
}
