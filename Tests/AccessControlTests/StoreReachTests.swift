@testable import AccessControl
import Testing

/// ``StoreReach``: which stores a store list reaches, and which lists are refused.
@Suite struct StoreReachTests {
    /// Expects `reach` to reach every id of `reached` and none of `missed`, naming the id that fails.
    private func expect(
        _ reach: StoreReach, reaches reached: [String], misses missed: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for id in reached {
            #expect(reach.reaches(storeID: id), "\(id.debugDescription) is not reached", sourceLocation: sourceLocation)
        }
        for id in missed {
            #expect(!reach.reaches(storeID: id), "\(id.debugDescription) is reached", sourceLocation: sourceLocation)
        }
    }

    @Test func withoutAListEveryStoreIsReached() {
        #expect(StoreReach.everyStore.isUnlimited)
        expect(.everyStore, reaches: ["default", "room-1", "a", String(repeating: "z", count: 128)], misses: [])
        #expect(StoreReach.everyStore.description == "*")
    }

    @Test func anEmptyListReachesNoStore() throws {
        let empty = try StoreReach(patterns: [String]())
        #expect(empty == .noStore)
        #expect(!empty.isUnlimited)
        expect(empty, reaches: [], misses: ["default", "room-1"])
    }

    @Test func anExactIdReachesThatStoreOnlyCaseSensitively() throws {
        let reach = try StoreReach(patterns: ["lobby", "doc.1"])
        expect(reach, reaches: ["lobby", "doc.1"], misses: ["Lobby", "lobby2", "lobb", "default"])
    }

    @Test func aPrefixReachesEveryStoreStartingWithIt() throws {
        let reach = try StoreReach(patterns: ["room-*", "lobby"])
        expect(reach, reaches: ["room-1", "room-", "room-a.b~c_d", "lobby"], misses: ["room", "Room-1", "xroom-1"])
        #expect(reach.description == "lobby+room-*")
    }

    @Test func aStarAloneIsEveryStore() throws {
        #expect(try StoreReach(patterns: ["lobby", "*"]) == .everyStore)
    }

    @Test func anIdThatIsCanonicallyEquivalentButNotTheSameBytesIsNotReached() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K": Swift's == would say they match.
        let reach = try StoreReach(patterns: ["K"])
        expect(reach, reaches: ["K"], misses: ["\u{212A}"])
    }

    @Test(arguments: [
        ("", "a store pattern is empty"),
        ("-room", "starts with a letter or a digit"),
        ("room 1", "only the characters of store ids"),
        ("room-*-x", "only the characters of store ids"),
        ("**", "starts with a letter or a digit"),
        ("a**", "only the characters of store ids"),
        ("é", "starts with a letter or a digit"),
        (String(repeating: "a", count: 129), "longer than a store id"),
    ])
    func aPatternThatCannotNameAStoreIsRefused(pattern: String, rule: String) {
        do {
            _ = try StoreReach(patterns: [pattern])
            Issue.record("accepted \(pattern.debugDescription)")
        } catch {
            #expect(error.message.contains(rule), "\(error.message)")
        }
    }

    @Test func theLongestIdAndItsPrefixFormAreAccepted() throws {
        let id = String(repeating: "a", count: 128)
        #expect(try StoreReach(patterns: [id]).reaches(storeID: id))
        #expect(try StoreReach(patterns: [id + "*"]).reaches(storeID: id))
    }
}
