import HTTPTestSupport
import ReMVVMServer
import Testing

/// Every store's resume ring shares one `replayRingBytes` (docs/http-api.md, "Resuming event
/// streams"): a store keeps its share, the budget over the stores keeping versions.
@Suite struct SharedReplayRingTests {
    /// The example state's frames count as 256 bytes: 4,096 keep 16 versions for one store.
    private static let budget = 4_096

    /// Resumes `store`'s events after `version` and tells whether the stream starts with a reset;
    /// otherwise checks it gets every version after `version` through `newest`, in order.
    private func resumes(_ server: StoresServer, _ store: String, after version: Int, newest: Int) throws -> Bool {
        let tag = try #require(try server.send("GET", "/stores/\(store)/state").headers["ETag"])
        let instance = try #require(tag.split(separator: "-").last).dropLast()  // "N-<instance>"
        let stream = try SSEClient(port: server.port, path: "/stores/\(store)/events", headers: [("Last-Event-ID", "\(version)-\(instance)")])
        defer { stream.close() }
        if stream.headers["ReMVVM-Replay"] == "reset" { return false }
        for expected in version + 1...newest {
            #expect(try stream.nextEvent(timeout: .seconds(5))?.version == UInt64(expected), "\(store)")
        }
        return true
    }

    @Test func storesShareTheRingBudgetAndEachKeepsItsShare() throws {
        let server = try StoresServer(transport: .live, replayRingBytes: Self.budget)
        for store in ["a", "b", "c"] {
            #expect(try server.send("PUT", "/stores/\(store)").status == 201)
        }
        // Alone, a keeps the whole budget: versions 25...40.
        #expect(try server.increase("a", times: 40).status == 200)
        #expect(try resumes(server, "a", after: 24, newest: 40))
        #expect(try !resumes(server, "a", after: 23, newest: 40))

        // b keeps versions too: each ring's share is half, 8 versions, a's from its next version.
        #expect(try server.increase("b", times: 40).status == 200)
        #expect(try resumes(server, "b", after: 32, newest: 40))
        #expect(try !resumes(server, "b", after: 31, newest: 40))
        #expect(try server.increase("a").status == 200)
        #expect(try resumes(server, "a", after: 33, newest: 41))
        #expect(try !resumes(server, "a", after: 32, newest: 41))

        // A third ring: more than twice the rings of the last pass (one), so every ring is cut to
        // its third (5 versions) at once, not only at its next version.
        #expect(try server.increase("c").status == 200)
        #expect(try resumes(server, "a", after: 36, newest: 41))
        #expect(try !resumes(server, "a", after: 35, newest: 41))
        #expect(try resumes(server, "b", after: 35, newest: 40))
        #expect(try !resumes(server, "b", after: 34, newest: 40))

        // A deleted store's ring leaves the budget: a's share is half again from its next version.
        #expect(try server.send("DELETE", "/stores/c").status == 204)
        #expect(try server.increase("a", times: 10).status == 200)
        #expect(try resumes(server, "a", after: 43, newest: 51))
        #expect(try !resumes(server, "a", after: 42, newest: 51))
    }

    @Test func aStoreThatNeverChangedTakesNoShare() throws {
        let server = try StoresServer(transport: .live, replayRingBytes: Self.budget)
        for store in ["a", "quiet"] {
            #expect(try server.send("PUT", "/stores/\(store)").status == 201)
        }
        _ = try server.send("GET", "/stores/quiet/state")
        #expect(try server.increase("a", times: 20).status == 200)
        #expect(try resumes(server, "a", after: 4, newest: 20), "16 versions: the whole budget")
        #expect(try !resumes(server, "a", after: 3, newest: 20))
    }
}
