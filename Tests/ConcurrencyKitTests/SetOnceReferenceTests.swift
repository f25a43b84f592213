import ConcurrencyKit
import Testing

/// ``SetOnceReference``: the first object stored stays, every thread reads it, and it is released
/// with the reference.
@Suite struct SetOnceReferenceTests {
    final class Object: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    @Test func theFirstObjectStoredStaysAndLaterOnesAreRefused() {
        let reference = SetOnceReference()
        #expect(reference.load() == nil)
        let first = Object("first")
        let heldAfterFirst = ObjectIdentifier(reference.storeIfNil(first))
        #expect(heldAfterFirst == ObjectIdentifier(first))
        let second = Object("second")
        let heldAfterSecond = ObjectIdentifier(reference.storeIfNil(second))
        #expect(heldAfterSecond == ObjectIdentifier(first))
        #expect(reference.load().map(ObjectIdentifier.init) == ObjectIdentifier(first))
    }

    @Test func threadsRacingToStoreAllSeeTheOneObjectThatWon() async {
        let reference = SetOnceReference()
        let held = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<16 {
                group.addTask { ObjectIdentifier(reference.storeIfNil(Object("\(index)"))) }
            }
            var held: Set<ObjectIdentifier> = []
            for await identifier in group { held.insert(identifier) }
            return held
        }
        #expect(held.count == 1)
        #expect(reference.load().map(ObjectIdentifier.init) == held.first)
    }

    @Test func theStoredObjectIsReleasedWithTheReferenceAndARefusedOneAtOnce() {
        weak var stored: Object?
        weak var refused: Object?
        do {
            let reference = SetOnceReference()
            do {
                let first = Object("first")
                let second = Object("second")
                stored = first
                refused = second
                reference.storeIfNil(first)
                reference.storeIfNil(second)
            }
            #expect(stored != nil, "the reference keeps what it holds")
            #expect(refused == nil, "a refused object is not kept")
            _ = reference
        }
        #expect(stored == nil)
    }
}
