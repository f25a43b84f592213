import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// The idempotency-key lookups of a replica's requests, off the HTTP threads and batched: every
/// caller gets the answer kept for its own key (on a log row, kept without actions, or none),
/// PostgreSQL down is an error that the next lookup recovers from, and a stopped lookup answers
/// at once.
@Suite(.serialized) struct PostgresAnswerLookupTests {
    private static func answer(_ key: String, status: Int) -> KeptAnswer {
        KeptAnswer(key: key, fingerprint: [UInt8(status % 256)], status: status, body: Array("{\"k\":\"\(key)\"}".utf8), time: 5)
    }

    private static func lookUp(_ lookup: PostgresAnswerLookup, _ key: String) -> Result<KeptAnswer?, PostgresLogError>? {
        let result = Mailbox<Result<KeptAnswer?, PostgresLogError>>()
        lookup.lookUp(key) { result.post($0) }
        return result.next(timeout: .seconds(10))
    }

    @Test func concurrentLookupsEachGetTheAnswerOfTheirOwnKey() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        var groups: [LogGroup] = []
        for index in 0..<32 {
            groups.append(LogGroup(actions: [LoggedAction(type: "increase", payload: [], time: 1)], answer: Self.answer("row-\(index)", status: 200)))
            groups.append(LogGroup(actions: [], answer: Self.answer("held-\(index)", status: 202)))
        }
        _ = try log.append(groups)
        let lookup = PostgresAnswerLookup(conninfo: server.conninfo)
        defer { lookup.stop() }
        let errors = runOnThreads(16) { thread in
            for round in 0..<8 {
                let index = (thread * 8 + round) % 32
                for (key, status) in [("row-\(index)", 200), ("held-\(index)", 202), ("none-\(thread)-\(round)", 0)] {
                    let found = try #require(Self.lookUp(lookup, key), "no answer for \(key)").get()
                    if status == 0 {
                        #expect(found == nil, "\(key)")
                    } else {
                        #expect(found == Self.answer(key, status: status), "\(key)")
                    }
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func postgresDownIsAnErrorAndTheNextLookupAfterItsReturnReconnects() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        _ = try log.append([LogGroup(actions: [], answer: Self.answer("held", status: 202))])
        log.close()
        let lookup = PostgresAnswerLookup(conninfo: server.conninfo)
        defer { lookup.stop() }
        #expect(try Self.lookUp(lookup, "held")?.get()?.status == 202)
        server.stop()
        guard case .failure(let error)? = Self.lookUp(lookup, "held") else {
            Issue.record("a lookup while PostgreSQL is down did not fail")
            return
        }
        #expect(error.code == .unavailable)
        try server.start()
        #expect(waitUntil(timeout: .seconds(20)) {
            (try? Self.lookUp(lookup, "held")?.get())??.status == 202
        })
    }

    @Test func aStoppedLookupAnswersAtOnceWithClosed() throws {
        let server = try PostgresServer()
        let lookup = PostgresAnswerLookup(conninfo: server.conninfo)
        #expect(try Self.lookUp(lookup, "none")?.get() == nil)
        lookup.stop()
        guard case .failure(let error)? = Self.lookUp(lookup, "none") else {
            Issue.record("a stopped lookup did not refuse")
            return
        }
        #expect(error.code == .closed)
    }
}
