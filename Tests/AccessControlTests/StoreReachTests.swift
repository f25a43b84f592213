@testable import AccessControl
import Testing

/// ``StoreReach``: which stores a store list reaches, and which lists are refused.
@Suite struct StoreReachTests {
    @Test func withoutAListEveryStoreIsReached() {
        #expect(StoreReach.everyStore.isUnlimited)
        for id in ["default", "room-1", "a", String(repeating: "z", count: 128)] {
            #expect(StoreReach.everyStore.reaches(storeID: id))
        }
        #expect(StoreReach.everyStore.description == "*")
    }

    @Test func anEmptyListReachesNoStore() throws {
        let empty = try StoreReach(patterns: [String]())
        #expect(empty == .noStore)
        #expect(!empty.isUnlimited)
        #expect(!empty.reaches(storeID: "default"))
        #expect(!empty.reaches(storeID: "room-1"))
    }

    @Test func anExactIdReachesThatStoreOnlyCaseSensitively() throws {
        let reach = try StoreReach(patterns: ["lobby", "doc.1"])
        #expect(reach.reaches(storeID: "lobby"))
        #expect(reach.reaches(storeID: "doc.1"))
        #expect(!reach.reaches(storeID: "Lobby"))
        #expect(!reach.reaches(storeID: "lobby2"))
        #expect(!reach.reaches(storeID: "lobb"))
        #expect(!reach.reaches(storeID: "default"))
    }

    @Test func aPrefixReachesEveryStoreStartingWithIt() throws {
        let reach = try StoreReach(patterns: ["room-*", "lobby"])
        #expect(reach.reaches(storeID: "room-1"))
        #expect(reach.reaches(storeID: "room-"))
        #expect(reach.reaches(storeID: "room-a.b~c_d"))
        #expect(!reach.reaches(storeID: "room"))
        #expect(!reach.reaches(storeID: "Room-1"))
        #expect(!reach.reaches(storeID: "xroom-1"))
        #expect(reach.reaches(storeID: "lobby"))
        #expect(reach.description == "lobby+room-*")
    }

    @Test func aStarAloneIsEveryStore() throws {
        #expect(try StoreReach(patterns: ["lobby", "*"]) == .everyStore)
    }

    @Test func anIdThatIsCanonicallyEquivalentButNotTheSameBytesIsNotReached() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K": Swift's == would say they match.
        let reach = try StoreReach(patterns: ["K"])
        #expect(reach.reaches(storeID: "K"))
        #expect(!reach.reaches(storeID: "\u{212A}"))
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
