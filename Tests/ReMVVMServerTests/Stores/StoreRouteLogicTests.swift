import Foundation
import Journal
import MicroHTTP
@testable import ReMVVMServer
import Testing

/// The management routes' answers, without a socket (`docs/http-api.md`, "Stores").
@Suite struct StoreRouteLogicTests {
    private struct Description: Decodable, Equatable {
        var id: String
        var version: UInt64
        var createdAt: String
        var lastActionAt: String?
        var loaded: Bool
    }

    private struct Page: Decodable {
        var stores: [Description]
        var next: String?
    }

    private func body(_ response: Response) -> [UInt8] {
        guard case .bytes(let bytes) = response.body else { return [] }
        return bytes
    }

    private func decoded<Value: Decodable>(_ response: Response, as type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(body(response)))
    }

    private func problem(_ response: Response) throws -> (type: String, detail: String, field: String?) {
        struct Body: Decodable { var type: String; var detail: String; var field: String? }
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let body = try decoded(response, as: Body.self)
        return (body.type, body.detail, body.field)
    }

    private func put(_ directory: StoreDirectory<TestStoreLoader>, _ id: String, headers: HTTPHeaders = [:]) -> Response {
        directory.respondToPut(Request(method: .PUT, path: "/stores/\(id)", headers: headers), id: id)
    }

    @Test func putCreatesWith201ThenAnswers200AndIfNoneMatchStarRefusesWith412() throws {
        let fixture = DirectoryFixture()
        let created = put(fixture.directory, "room-1")
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/stores/room-1")
        let description = try decoded(created, as: Description.self)
        #expect(description == Description(id: "room-1", version: 0, createdAt: "1970-01-01T00:16:40.000Z", lastActionAt: nil, loaded: false))
        let again = put(fixture.directory, "room-1")
        #expect(again.status == 200)
        #expect(try decoded(again, as: Description.self) == description)
        let onlyNew = put(fixture.directory, "room-1", headers: ["If-None-Match": "*"])
        #expect(onlyNew.status == 412)
        #expect(try problem(onlyNew).type == "urn:remvvm:problem:store-exists")
        #expect(put(fixture.directory, "room-2", headers: ["If-None-Match": "*"]).status == 201)
    }

    @Test func putPastMaxStoresAnswers507() throws {
        let fixture = DirectoryFixture(maxStores: 1)
        let refused = put(fixture.directory, "room")
        #expect(refused.status == 507)
        #expect(try problem(refused).type == "urn:remvvm:problem:store-limit-reached")
        #expect(fixture.catalog.count() == 1)
    }

    @Test func aMalformedIdAnswers400NamingTheRule() throws {
        let fixture = DirectoryFixture()
        let cases: [(String, StoreIDError)] = [
            ("-room", .badStart), ("room/1", .notAllowed), ("räum", .notAllowed), (String(repeating: "a", count: 129), .tooLong(129)),
        ]
        for (text, rule) in cases {
            for response in [put(fixture.directory, text), fixture.directory.respondToGet(id: text), fixture.directory.respondToDelete(id: text)] {
                #expect(response.status == 400)
                let body = try problem(response)
                #expect(body.type == "urn:remvvm:problem:invalid-store-id" && body.detail.hasSuffix(rule.rule) && body.field == "store")
            }
        }
    }

    @Test func getDescribesAStoreAnd404sAnAbsentOne() throws {
        let fixture = DirectoryFixture()
        _ = put(fixture.directory, "room")
        fixture.catalog.recordActions(of: try StoreID("room"), version: 3, at: 1_764_325_867_250)
        try fixture.use("room")
        let found = fixture.directory.respondToGet(id: "room")
        #expect(found.status == 200)
        #expect(try decoded(found, as: Description.self) == Description(
            id: "room", version: 3, createdAt: "1970-01-01T00:16:40.000Z", lastActionAt: "2025-11-28T10:31:07.250Z", loaded: true
        ))
        let absent = fixture.directory.respondToGet(id: "nothing")
        #expect(absent.status == 404)
        #expect(try problem(absent).type == "urn:remvvm:problem:store-not-found")
    }

    @Test func deleteAnswers204Then404AndRefusesTheDefaultStoreWith405() throws {
        let fixture = DirectoryFixture()
        _ = put(fixture.directory, "room")
        let deleted = fixture.directory.respondToDelete(id: "room")
        #expect(deleted.status == 204 && body(deleted).isEmpty)
        #expect(fixture.directory.respondToDelete(id: "room").status == 404)
        let refused = fixture.directory.respondToDelete(id: "default")
        #expect(refused.status == 405)
        #expect(refused.headers["Allow"] == "GET, HEAD, PUT")
        #expect(try problem(refused).type == "urn:remvvm:problem:default-store-undeletable")
    }

    @Test func listingPagesByIdAndRefusesBadLimitsAndAfter() throws {
        let fixture = DirectoryFixture()
        for id in ["b", "a", "c"] { _ = put(fixture.directory, id) }
        let first = try decoded(fixture.directory.respondToList(Request(method: .GET, path: "/stores", query: ["limit": "2"])), as: Page.self)
        #expect(first.stores.map(\.id) == ["a", "b"] && first.next == "b")
        let second = try decoded(
            fixture.directory.respondToList(Request(method: .GET, path: "/stores", query: ["limit": "2", "after": "b"])), as: Page.self
        )
        #expect(second.stores.map(\.id) == ["c", "default"] && second.next == nil)
        let prefixed = try decoded(fixture.directory.respondToList(Request(method: .GET, path: "/stores", query: ["prefix": "d"])), as: Page.self)
        #expect(prefixed.stores.map(\.id) == ["default"] && prefixed.next == nil)
        for bad in ["0", "1001", "ten", "-1", ""] {
            let response = fixture.directory.respondToList(Request(method: .GET, path: "/stores", query: ["limit": bad]))
            #expect(response.status == 400)
            #expect(try problem(response).field == "limit")
        }
        let badAfter = fixture.directory.respondToList(Request(method: .GET, path: "/stores", query: ["after": "-x"]))
        #expect(badAfter.status == 400)
        #expect(try problem(badAfter).field == "after")
    }

    @Test func timesAreRFC3339InUTCWithMilliseconds() {
        func text(_ milliseconds: Int64) -> String { String(decoding: StoreListingJSON.timestamp(milliseconds), as: UTF8.self) }
        #expect(text(0) == "\"1970-01-01T00:00:00.000Z\"")
        #expect(text(951_782_400_000) == "\"2000-02-29T00:00:00.000Z\"")
        #expect(text(1_764_325_867_250) == "\"2025-11-28T10:31:07.250Z\"")
        #expect(text(-1) == "\"1969-12-31T23:59:59.999Z\"")
        #expect(text(253_402_300_799_999) == "\"9999-12-31T23:59:59.999Z\"")
    }
}
