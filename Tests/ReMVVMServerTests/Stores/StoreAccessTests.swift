import AccessControl
import Foundation
import HTTPTestSupport
import Journal
import Testing

/// Tokens limited to stores, over HTTP through the service's responder (docs/security.md, "Tokens
/// limited to stores"; docs/http-api.md, "Stores"): a store out of reach answers exactly as one
/// that does not exist, the root routes are `default`, management needs `manage`, the listing
/// shows the stores in reach only.
@Suite struct StoreAccessTests {
    /// Every scope, every store.
    static let admin = "admin-Zr8v0w"
    /// `read+dispatch` in `lobby` and `room-*` (not `default`).
    static let guest = "guest-Kp41z"
    /// Every scope in `room-*` only.
    static let roomManager = "manager-Qm2x7"
    /// `read+dispatch+manage` with an empty list: no store.
    static let nowhere = "nowhere-Tt55k"
    /// `read` alone, in `lobby`.
    static let reader = "reader-Hq83d"

    static func authorizer() throws -> BearerAuthorizer {
        try AccessTokens.authorizer(staticTokens: [
            "\(admin)=read+dispatch+manage", "\(guest)=read+dispatch@lobby+room-*",
            "\(roomManager)=read+dispatch+manage@room-*", "\(nowhere)=read+dispatch+manage@", "\(reader)=read@lobby",
        ].joined(separator: ","))
    }

    static func server(autoCreate: Bool = false) throws -> StoresServer {
        try StoresServer(autoCreate: autoCreate, accessControl: authorizer())
    }

    /// The requests of a store's routes and of its management `GET`, as `(method, path after
    /// /stores/{id}, body)`.
    static let storeRequests: [(String, String, String)] = [
        ("GET", "/state", ""), ("GET", "/actions", ""), ("POST", "/actions", #"{"type":"increase"}"#),
        ("GET", "/viewmodels/counter", ""), ("GET", "/events", ""), ("GET", "/viewmodels/counter/events", ""),
        ("POST", "/viewmodels/counter/commands/increase", ""), ("GET", "", ""),
    ]

    private func send(
        _ server: StoresServer, _ method: String, _ path: String, token: String, body: String = ""
    ) throws -> TestHTTPResponse {
        try server.send(method, path, headers: [("Authorization", "Bearer \(token)")], body: body)
    }

    @Test func aStoreOutOfReachAnswersExactlyAsAStoreThatDoesNotExist() throws {
        let server = try Self.server()
        for (method, route, body) in Self.storeRequests {
            let path = "/stores/vault" + route
            let absentToAdmin = try send(server, method, path, token: Self.admin, body: body)
            let absentToGuest = try send(server, method, path, token: Self.guest, body: body)
            #expect(try send(server, "PUT", "/stores/vault", token: Self.admin).status == 201)
            let presentToGuest = try send(server, method, path, token: Self.guest, body: body)
            #expect(try send(server, "DELETE", "/stores/vault", token: Self.admin).status == 204)
            #expect(absentToAdmin.status == 404 && absentToAdmin.problem?.type == "urn:remvvm:problem:store-not-found", "\(method) \(path)")
            for seen in [absentToGuest, presentToGuest] {
                #expect(seen.status == absentToAdmin.status, "\(method) \(path)")
                #expect(seen.bodyString == absentToAdmin.bodyString, "\(method) \(path)")
                #expect(seen.headers["Content-Type"] == absentToAdmin.headers["Content-Type"], "\(method) \(path)")
            }
        }
    }

    @Test func aStoreInReachIsServedWithTheMethodsScope() throws {
        let server = try Self.server()
        #expect(try send(server, "PUT", "/stores/room-1", token: Self.admin).status == 201)
        #expect(try send(server, "POST", "/stores/room-1/actions", token: Self.guest, body: #"{"type":"increase"}"#).bodyString == #"{"version":1}"#)
        #expect(try send(server, "GET", "/stores/room-1/state", token: Self.guest).bodyString == #"{"counter":1,"user":null}"#)
        #expect(try send(server, "GET", "/stores/room-1", token: Self.guest).status == 200, "describing one store needs read only")
        #expect(try send(server, "PUT", "/stores/vault", token: Self.admin).status == 201)
        #expect(try send(server, "GET", "/stores/vault/state", token: Self.guest).problem?.type == "urn:remvvm:problem:store-not-found")
        #expect(try send(server, "GET", "/stores/vault/state", token: Self.admin).status == 200)
        // A malformed id names no store: its 400 says nothing about any store.
        #expect(try send(server, "GET", "/stores/-x/state", token: Self.guest).status == 400)
    }

    @Test func theRootRoutesAreTheStoreDefault() throws {
        let server = try Self.server()
        let viaRoot = try send(server, "GET", "/state", token: Self.guest)
        let viaStores = try send(server, "GET", "/stores/default/state", token: Self.guest)
        #expect(viaRoot.status == 404 && viaRoot.problem?.type == "urn:remvvm:problem:store-not-found")
        #expect(viaRoot.bodyString == viaStores.bodyString)
        for (method, path) in [("POST", "/actions"), ("GET", "/actions"), ("GET", "/events"), ("GET", "/viewmodels/counter"), ("GET", "/stats")] {
            let body = method == "POST" ? #"{"type":"increase"}"# : ""
            #expect(try send(server, method, path, token: Self.guest, body: body).status == 404, "\(method) \(path)")
        }
        #expect(try send(server, "GET", "/state", token: Self.admin).bodyString == #"{"counter":0,"user":null}"#, "nothing was dispatched")
        // Routes of no store stay open to any token with the scope.
        #expect(try send(server, "GET", "/openapi.json", token: Self.guest).status == 200)
        #expect(try send(server, "GET", "/access", token: Self.nowhere).status == 200)
    }

    @Test func creatingDeletingAndListingNeedTheManageScope() throws {
        let server = try Self.server()
        for (method, path) in [("PUT", "/stores/room-1"), ("DELETE", "/stores/room-1"), ("GET", "/stores"), ("HEAD", "/stores")] {
            let refused = try send(server, method, path, token: Self.guest)
            #expect(refused.status == 403, "\(method) \(path)")
            #expect(refused.headers["WWW-Authenticate"]?.contains(#"scope="manage""#) == true, "\(method) \(path)")
            if method != "HEAD" {
                #expect(refused.problem?.type == "urn:remvvm:problem:insufficient-scope", "\(method) \(path)")
            }
        }
        #expect(server.catalog.count() == 1, "nothing was created")
        #expect(try send(server, "PUT", "/stores/room-1", token: Self.roomManager).status == 201)
        #expect(try send(server, "DELETE", "/stores/room-1", token: Self.roomManager).status == 204)
    }

    /// The scope is checked first: a token without it gets `403` for a store out of its reach too,
    /// never the `404` that would tell the store's reach apart from its scopes.
    @Test func aMissingScopeIs403WhetherTheStoreIsInReachOrNot() throws {
        let server = try Self.server(autoCreate: true)
        #expect(try send(server, "PUT", "/stores/vault", token: Self.admin).status == 201)
        let refusals: [(String, String, String, String)] = [
            (Self.guest, "PUT", "/stores/vault", "manage"), (Self.guest, "DELETE", "/stores/vault", "manage"),
            (Self.guest, "PUT", "/stores/elsewhere", "manage"),
            (Self.reader, "POST", "/stores/vault/actions", "dispatch"), (Self.reader, "POST", "/stores/lobby/actions", "dispatch"),
            (Self.reader, "POST", "/stores/new/actions", "dispatch"),
        ]
        for (token, method, path, scope) in refusals {
            let body = method == "POST" ? #"{"type":"increase"}"# : ""
            let refused = try send(server, method, path, token: token, body: body)
            #expect(refused.status == 403 && refused.problem?.type == "urn:remvvm:problem:insufficient-scope", "\(method) \(path)")
            #expect(refused.headers["WWW-Authenticate"]?.contains("scope=\"\(scope)\"") == true, "\(method) \(path)")
        }
        #expect(server.catalog.count() == 2, "default and vault: nothing created, nothing deleted")
        #expect(try send(server, "GET", "/stores/vault/state", token: Self.admin).bodyString == #"{"counter":0,"user":null}"#)
    }

    @Test func managingAStoreOutOfReachIs404AndChangesNothing() throws {
        let server = try Self.server()
        #expect(try send(server, "PUT", "/stores/lobby", token: Self.admin).status == 201)
        for (method, path) in [("PUT", "/stores/lobby"), ("DELETE", "/stores/lobby"), ("GET", "/stores/lobby"), ("PUT", "/stores/new")] {
            let refused = try send(server, method, path, token: Self.roomManager)
            #expect(refused.status == 404 && refused.problem?.type == "urn:remvvm:problem:store-not-found", "\(method) \(path)")
        }
        #expect(server.catalog.describe(try StoreID("lobby")) != nil, "not deleted")
        #expect(server.catalog.describe(try StoreID("new")) == nil, "not created")
    }

    /// A request target without its leading `/` is refused before the gates and the router: the
    /// gate once read `stores/vault` as a path of no store (the method's scope, no reach) while
    /// the router matched it to `/stores/:store`, so the guest read and deleted `vault`.
    @Test func aTargetWithoutItsLeadingSlashReachesNoStore() throws {
        let server = try StoresServer(transport: .live, accessControl: Self.authorizer())
        #expect(try send(server, "PUT", "/stores/vault", token: Self.admin).status == 201)
        #expect(try send(server, "POST", "/stores/vault/actions", token: Self.admin, body: #"{"type":"increase"}"#).status == 200)
        for (method, target) in [
            ("GET", "stores/vault/state"), ("GET", "stores/vault/actions"), ("DELETE", "stores/vault"), ("PUT", "stores/other"),
            ("POST", "viewmodels/counter/commands/increase"), ("GET", "stores/vault/events"),
        ] {
            let answer = try send(server, method, target, token: Self.guest)
            #expect(answer.status == 400, "\(method) \(target): \(answer.bodyString)")
            #expect(!answer.bodyString.contains("\"counter\""), "\(method) \(target): no state")
        }
        #expect(server.catalog.describe(try StoreID("vault")) != nil, "not deleted")
        #expect(server.catalog.describe(try StoreID("other")) == nil, "not created")
        #expect(try send(server, "GET", "/state", token: Self.admin).bodyString.contains(#""counter":0"#), "default unchanged")
    }

    @Test func theListingShowsOnlyTheStoresInReachInFullPages() throws {
        let server = try Self.server()
        for id in ["a", "room-1", "b", "room-2", "c", "d", "room-3", "e", "room-4", "z"] {
            #expect(try send(server, "PUT", "/stores/\(id)", token: Self.admin).status == 201)
        }
        var seen: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let page = try send(server, "GET", "/stores?limit=3" + (after.map { "&after=\($0)" } ?? ""), token: Self.roomManager)
                .decoded(StoreListing.self)
            pages += 1
            if page.next != nil { #expect(page.stores.count == 3, "a page with a next page is full") }
            seen += page.stores.map(\.id)
            after = page.next
        } while after != nil && pages < 10
        #expect(seen == ["room-1", "room-2", "room-3", "room-4"])
        #expect(pages == 2)
        let all = try send(server, "GET", "/stores", token: Self.admin).decoded(StoreListing.self)
        #expect(all.stores.count == 11, "every store, default included")
        #expect(try send(server, "GET", "/stores", token: Self.nowhere).decoded(StoreListing.self).stores.isEmpty)
    }

    /// Whether a listing has a next page tells nothing of the stores out of reach: a full page
    /// followed only by stores the token does not reach ends the listing.
    @Test func aFullPageFollowedOnlyByStoresOutOfReachHasNoNextPage() throws {
        let server = try Self.server()
        #expect(try send(server, "PUT", "/stores/room-1", token: Self.admin).status == 201)
        let alone = try send(server, "GET", "/stores?limit=1", token: Self.roomManager)
        #expect(try send(server, "PUT", "/stores/zz", token: Self.admin).status == 201)
        let besideAnother = try send(server, "GET", "/stores?limit=1", token: Self.roomManager)
        #expect(alone.bodyString == besideAnother.bodyString)
        #expect(try besideAnother.decoded(StoreListing.self).next == nil)
        #expect(try besideAnother.decoded(StoreListing.self).stores.map(\.id) == ["room-1"])
        // A store in reach after the page still gives the next page.
        #expect(try send(server, "PUT", "/stores/room-2", token: Self.admin).status == 201)
        #expect(try send(server, "GET", "/stores?limit=1", token: Self.roomManager).decoded(StoreListing.self).next == "room-1")
    }

    @Test func aWriteOutOfReachNeverCreatesTheStore() throws {
        let server = try Self.server(autoCreate: true)
        let refused = try send(server, "POST", "/stores/vault/actions", token: Self.guest, body: #"{"type":"increase"}"#)
        #expect(refused.status == 404 && refused.problem?.type == "urn:remvvm:problem:store-not-found")
        #expect(try send(server, "POST", "/stores/vault/viewmodels/counter/commands/increase", token: Self.guest).status == 404)
        #expect(server.catalog.count() == 1)
        #expect(try send(server, "POST", "/stores/room-5/actions", token: Self.guest, body: #"{"type":"increase"}"#).bodyString == #"{"version":1}"#)
        #expect(server.catalog.count() == 2)
    }

    @Test func aJWTIsLimitedByItsStoresClaim() throws {
        let server = try Self.server()
        for id in ["lobby", "room-1"] {
            #expect(try send(server, "PUT", "/stores/\(id)", token: Self.admin).status == 201)
        }
        let token = AccessTokens.jwt(scope: "read dispatch manage", stores: ["room-*"])
        #expect(try send(server, "GET", "/stores/room-1/state", token: token).status == 200)
        #expect(try send(server, "GET", "/stores/lobby/state", token: token).problem?.type == "urn:remvvm:problem:store-not-found")
        #expect(try send(server, "GET", "/state", token: token).status == 404)
        #expect(try send(server, "GET", "/stores", token: token).decoded(StoreListing.self).stores.map(\.id) == ["room-1"])
        // A stream's token in the query is held to the same list.
        #expect(try server.send("GET", "/stores/lobby/events?access_token=\(token)").status == 404)
        let unlimited = AccessTokens.jwt(scope: "read")
        #expect(try send(server, "GET", "/stores/lobby/state", token: unlimited).status == 200)
        #expect(try send(server, "GET", "/stores", token: unlimited).status == 403)
    }

    @Test func getAccessShowsTheTokensStores() throws {
        let server = try Self.server()
        #expect(try send(server, "GET", "/access", token: Self.guest).decoded(AccessBody.self).stores == ["lobby", "room-*"])
        #expect(try send(server, "GET", "/access", token: Self.admin).decoded(AccessBody.self).stores == ["*"])
        #expect(try send(server, "GET", "/access", token: Self.nowhere).decoded(AccessBody.self).stores == [])
        let jwt = AccessTokens.jwt(scope: "read", stores: ["room-*", "lobby"])
        #expect(try send(server, "GET", "/access", token: jwt).decoded(AccessBody.self).stores == ["lobby", "room-*"])
        let open = try StoresServer()
        #expect(try open.send("GET", "/access").decoded(AccessBody.self).stores == ["*"])
    }

    @Test func withoutTokensEveryStoreIsReachableWithoutManage() throws {
        let server = try StoresServer()
        #expect(try server.send("PUT", "/stores/vault").status == 201)
        #expect(try server.send("GET", "/stores/vault/state").status == 200)
        #expect(try server.send("GET", "/stores").decoded(StoreListing.self).stores.count == 2)
        #expect(try server.send("DELETE", "/stores/vault").status == 204)
    }

    struct StoreListing: Decodable {
        var stores: [StoreDescriptionBody]
        var next: String?
    }

    struct AccessBody: Decodable {
        var accessControl: Bool
        var scopes: [String]
        var stores: [String]
    }
}
