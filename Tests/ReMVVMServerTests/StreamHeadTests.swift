import HTTPTestSupport
import Journal
import Testing

/// `HEAD` of an event-stream route (docs/http-api.md, "Server-sent events"): `GET`'s head —
/// `ReMVVM-Replay: reset` included — with `Content-Length: 0`, told without subscribing: no
/// view models made, no journal replayed, no stream counted as ended.
@Suite struct StreamHeadTests {
    /// The stream routes, each with the ids that resume and those that reset on a journal that
    /// keeps the snapshots of 20 and 40 and the records 31…50 (see ``live()``).
    private static let routes: [(path: String, resumes: [String?], resets: [String])] = [
        ("/events", [nil, "41", "45", "50"], ["20", "25", "33", "51", "x", "-1"]),
        ("/events?delta=json-patch", [nil, "41", "50"], ["25", "51", "x"]),
        // A view-model stream resets only for an id that is no version up to the newest: the
        // view models at an older version it cannot rebuild count as unknown, not as a reset.
        ("/viewmodels/counter/events", [nil, "25", "41", "50"], ["51", "x"]),
        ("/viewmodels/events?name=counter&name=greetings", [nil, "33", "50"], ["51", "x"]),
    ]

    /// A durable server whose journal is what retention leaves: snapshots of 20 and 40, records
    /// 31…50 (records 21…30 removed).
    private func live() throws -> LiveServer {
        let storage = MemoryJournalStorage()
        try storage.append((31...50).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 0) })
        for version in [20, 40] {
            try storage.saveSnapshot(JournalSnapshot(version: UInt64(version), state: Array(#"{"counter":\#(version),"user":null}"#.utf8), time: 0))
        }
        return try LiveServer(journal: storage)
    }

    /// The reasons `remvvm_sse_disconnects_total` has a series for.
    private static let disconnectReasons = 5

    private func headers(_ id: String?) -> [(String, String)] {
        [("Accept", "text/event-stream")] + (id.map { [("Last-Event-ID", $0)] } ?? [])
    }

    /// The fields of a stream's head that `HEAD` and `GET` share (all but the framing).
    private func shared(_ headers: TestHTTPHeaders) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in headers where !["content-length", "transfer-encoding", "date"].contains(name.lowercased()) {
            fields[name.lowercased()] = value
        }
        return fields
    }

    @Test func theHeadOfAStreamRouteIsGETsHeadToldWithoutSubscribing() throws {
        let live = try live()
        var heads: [String: [String: String]] = [:]
        for route in Self.routes {
            for (id, isReset) in route.resumes.map({ ($0, false) }) + route.resets.map({ ($0, true) }) {
                let head = try live.send(method: "HEAD", path: route.path, headers: headers(id))
                let what = "HEAD \(route.path) after \(id ?? "nothing")"
                #expect(head.status == 200, "\(what)")
                #expect(head.body.isEmpty, "\(what)")
                #expect(head.headers["Content-Length"] == "0", "\(what)")
                #expect(head.headers["Content-Type"] == "text/event-stream; charset=utf-8", "\(what)")
                #expect(head.headers["ReMVVM-Replay"] == (isReset ? "reset" : nil), "\(what)")
                heads["\(route.path) \(id ?? "")"] = shared(head.headers)
            }
        }
        // Nothing subscribed, so nothing ended: a subscribed stream that HEAD ended at once
        // would count as a client gone.
        // No view model made either, and no stream open.
        let metrics = try live.get("/metrics").bodyString
        let prefixes = ["remvvm_sse_disconnects_total{", "remvvm_viewmodels_made_total ", "remvvm_sse_subscribers{"]
        let counted = metrics.split(separator: "\n").filter { line in prefixes.contains { line.hasPrefix($0) } }
        #expect(counted.count == Self.disconnectReasons + 3 && counted.allSatisfy { $0.split(separator: " ").last.flatMap { Double($0) } == 0 }, "\(counted)")
        // The same head as GET's, stream by stream.
        for route in Self.routes {
            for id in route.resumes + route.resets.map(Optional.some) {
                let stream = try SSEClient(port: live.port, path: route.path, headers: headers(id))
                #expect(heads["\(route.path) \(id ?? "")"] == shared(stream.headers), "GET \(route.path) after \(id ?? "nothing")")
                stream.close()
            }
        }
    }

    @Test func aHeadOnAStreamRouteIsRefusedLikeItsGET() throws {
        let live = try live()
        #expect(try live.send(method: "HEAD", path: "/events?delta=xml").status == 400)
        #expect(try live.send(method: "HEAD", path: "/viewmodels/nope/events").status == 404)
        #expect(try live.send(method: "HEAD", path: "/viewmodels/events").status == 400)
    }
}
