import MicroHTTP
import Testing
@testable import ReMVVMServer

/// The encoded view-model cache behind `GET /viewmodels/<name>`.
@Suite struct ViewModelCacheTests {
    private func json(_ entry: ViewModelCache.Entry?) -> String? {
        guard case .answer(let response) = entry, case .bytes(let bytes) = response.body else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func answer(_ json: String) -> ViewModelCache.Entry {
        .answer(Response(status: 200, body: .bytes(Array(json.utf8))))
    }

    @Test func answersOnlyForTheVersionItWasStoredFor() {
        let cache = ViewModelCache()
        cache.store(answer("a"), slot: 0, name: "counter", key: nil, version: 3)
        #expect(json(cache.entry(slot: 0, name: "counter", key: nil, version: 3)) == "a")
        #expect(cache.entry(slot: 0, name: "counter", key: nil, version: 4) == nil)
        #expect(cache.entry(slot: 0, name: "counter", key: "x", version: 3) == nil, "keys are part of the identity")
    }

    @Test func olderVersionsNeverReplaceNewerOnes() {
        let cache = ViewModelCache()
        cache.store(answer("new"), slot: 0, name: "n", key: nil, version: 9)
        cache.store(answer("old"), slot: 0, name: "n", key: nil, version: 8)
        #expect(json(cache.entry(slot: 0, name: "n", key: nil, version: 9)) == "new")
    }

    @Test func unavailableIsCachedToo() {
        let cache = ViewModelCache()
        cache.store(.unavailable, slot: 0, name: "greetings", key: nil, version: 1)
        guard case .unavailable = cache.entry(slot: 0, name: "greetings", key: nil, version: 1) else {
            Issue.record("expected .unavailable")
            return
        }
    }

    @Test func staysWithinItsCapacityWhateverKeysClientsSend() {
        let cache = ViewModelCache(capacity: 2)
        cache.store(.unavailable, slot: 0, name: "v", key: "1", version: 1)
        cache.store(.unavailable, slot: 0, name: "v", key: "2", version: 1)
        cache.store(answer("3"), slot: 0, name: "v", key: "3", version: 1)
        #expect(cache.entry(slot: 0, name: "v", key: "1", version: 1) == nil)
        #expect(cache.entry(slot: 0, name: "v", key: "2", version: 1) == nil)
        #expect(json(cache.entry(slot: 0, name: "v", key: "3", version: 1)) == "3")
    }

    @Test func eachViewModelHasItsOwnSlotAndKeyedAnswersAreApart() {
        let cache = ViewModelCache()
        cache.store(answer("counter"), slot: 0, name: "counter", key: nil, version: 5)
        cache.store(answer("greetings"), slot: 3, name: "greetings", key: nil, version: 5)
        cache.store(answer("keyed"), slot: 0, name: "counter", key: "k", version: 5)
        #expect(json(cache.entry(slot: 0, name: "counter", key: nil, version: 5)) == "counter")
        #expect(json(cache.entry(slot: 3, name: "greetings", key: nil, version: 5)) == "greetings")
        #expect(json(cache.entry(slot: 0, name: "counter", key: "k", version: 5)) == "keyed")
        #expect(cache.entry(slot: 1, name: "other", key: nil, version: 5) == nil, "a slot nothing was stored in")
        #expect(cache.entry(slot: 7, name: "past", key: nil, version: 5) == nil, "a slot past those stored")
    }
}
