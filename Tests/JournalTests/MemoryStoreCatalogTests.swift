import Journal
import Testing

/// The in-memory catalog of stores: the rules every `StoreCatalog` keeps
/// (`Journal/Stores/StoreCatalog.swift`).
@Suite struct MemoryStoreCatalogTests {
    private func id(_ text: String) throws -> StoreID { try StoreID(text) }

    @Test func theDefaultStoreExistsFromTheStartAndCannotBeDeleted() throws {
        let catalog = MemoryStoreCatalog(createdAt: 1_000)
        #expect(catalog.count() == 1)
        let description = try #require(catalog.describe(.default))
        #expect(description.id == .default && description.version == 0 && description.createdAt == 1_000)
        #expect(description.lastActionAt == nil)
        #expect(!catalog.delete(.default))
        #expect(catalog.describe(.default) == description)
    }

    @Test func creatingAnExistingStoreChangesNothing() throws {
        let catalog = MemoryStoreCatalog(createdAt: 0)
        guard case .created(let first) = catalog.create(try id("room-1"), limit: 10, at: 5) else {
            Issue.record("the first creation must create")
            return
        }
        #expect(first.createdAt == 5 && first.version == 0)
        #expect(catalog.create(try id("room-1"), limit: 10, at: 9) == .existed(first))
        #expect(catalog.count() == 2)
    }

    @Test func creationStopsAtTheLimitWhichCountsTheDefaultStore() throws {
        let catalog = MemoryStoreCatalog(createdAt: 0)
        if case .created = catalog.create(try id("a"), limit: 2, at: 0) {} else { Issue.record("a fits under 2") }
        #expect(catalog.create(try id("b"), limit: 2, at: 0) == .limitReached)
        #expect(catalog.describe(try id("b")) == nil)
        if case .existed = catalog.create(try id("a"), limit: 2, at: 0) {} else { Issue.record("an existing store is no new one") }
    }

    @Test func aReCreatedStoreGetsANewIncarnationAndStartsAtVersionZero() throws {
        let catalog = MemoryStoreCatalog(createdAt: 0)
        let room = try id("room")
        _ = catalog.create(room, limit: 10, at: 1)
        catalog.recordActions(of: room, version: 7, at: 3)
        let before = try #require(catalog.describe(room))
        #expect(before.version == 7 && before.lastActionAt == 3)
        #expect(catalog.delete(room))
        #expect(!catalog.delete(room), "a second delete finds nothing")
        _ = catalog.create(room, limit: 10, at: 4)
        let after = try #require(catalog.describe(room))
        #expect(after.version == 0 && after.lastActionAt == nil && after.createdAt == 4)
        #expect(after.incarnation != before.incarnation)
    }

    @Test func listingIsOrderedByIdAndPagesByPrefixAfterAndLimit() throws {
        let catalog = MemoryStoreCatalog(createdAt: 0)
        for name in ["room-2", "doc-1", "room-10", "room-1", "Room-3", "room", "roomy"] {
            _ = catalog.create(try id(name), limit: 100, at: 0)
        }
        let all = catalog.list(prefix: "", after: nil, limit: 100).map(\.id.rawValue)
        #expect(all == ["Room-3", "default", "doc-1", "room", "room-1", "room-10", "room-2", "roomy"])
        #expect(catalog.list(prefix: "room-", after: nil, limit: 100).map(\.id.rawValue) == ["room-1", "room-10", "room-2"])
        #expect(catalog.list(prefix: "room-", after: nil, limit: 2).map(\.id.rawValue) == ["room-1", "room-10"])
        #expect(catalog.list(prefix: "room-", after: try id("room-10"), limit: 2).map(\.id.rawValue) == ["room-2"])
        // `after` need not exist, nor have the prefix.
        #expect(catalog.list(prefix: "room-", after: try id("room-0"), limit: 1).map(\.id.rawValue) == ["room-1"])
        #expect(catalog.list(prefix: "room-", after: try id("a"), limit: 1).map(\.id.rawValue) == ["room-1"])
        #expect(catalog.list(prefix: "", after: try id("roomy"), limit: 10).isEmpty)
        #expect(catalog.list(prefix: "zzz", after: nil, limit: 10).isEmpty)
    }

    @Test func recordedActionsOnlyMoveAStoreForward() throws {
        let catalog = MemoryStoreCatalog(createdAt: 0)
        catalog.recordActions(of: .default, version: 4, at: 10)
        catalog.recordActions(of: .default, version: 3, at: 20)
        let description = try #require(catalog.describe(.default))
        #expect(description.version == 4 && description.lastActionAt == 10)
        catalog.recordActions(of: try id("absent"), version: 1, at: 30)
        #expect(catalog.describe(try id("absent")) == nil)
    }

    @Test func aStoresActivityIsLookedUpOnceAndDiesWithTheStore() throws {
        let catalog = MemoryStoreCatalog(createdAt: 0)
        let room = try id("room")
        #expect(catalog.activity(of: room) == nil, "no store, no activity")
        _ = catalog.create(room, limit: 10, at: 1)
        let first = try #require(catalog.activity(of: room))
        first.record(version: 2, at: 5)
        first.record(version: 1, at: 6)
        #expect(catalog.describe(room).map { ($0.version, $0.lastActionAt) } ?? (0, nil) == (2, 5))
        #expect(catalog.list(prefix: "room", after: nil, limit: 1).first?.version == 2, "listings read it too")
        // What the deleted store's handler still records never reaches the store made again.
        #expect(catalog.delete(room))
        _ = catalog.create(room, limit: 10, at: 7)
        first.record(version: 3, at: 8)
        let again = try #require(catalog.describe(room))
        #expect(again.version == 0 && again.lastActionAt == nil)
        #expect(catalog.activity(of: room) !== first)
    }

    @Test func incarnationsAreEightHexDigits() {
        let incarnation = MemoryStoreCatalog.newIncarnation()
        #expect(incarnation.utf8.count == 8)
        #expect(incarnation.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }
}
