import ConcurrencyKit
import ExampleApp
import Foundation
import ReMVVM
import Testing

/// ``Services``: typed dependencies given to the store and its middleware at construction, the
/// production ones by default, faked in tests.
@Suite struct ServicesTests {
    private static let fixedTime = Date(timeIntervalSince1970: 1_800_000_000.5)

    /// The production services but for a clock that always reads ``fixedTime``.
    private static var fixedClockServices: Services {
        var services = Services()
        services.clock = FixedClock(fixedTime)
        return services
    }

    /// The actions `store` reduces from now on, in order (what a journal would keep).
    private static func reducedActions(of store: Store<AppState>) -> Lock<[any StoreAction]> {
        let reduced = Lock<[any StoreAction]>([])
        store.addPublicationHandler { publication in reduced.withLock { $0.append(publication.action) } }
        return reduced
    }

    private enum GreetingKey: ServiceKey {
        static var defaultValue: String { "hello" }
    }

    @Test func aKeyNobodySetGivesItsProductionDefault() {
        let services = Services()
        #expect(services[GreetingKey.self] == "hello")
        #expect(services.clock is SystemClock)
        let before = Date()
        let now = services.clock.now()
        #expect(now >= before && now <= Date())
    }

    @Test func aSetValueReplacesTheDefaultOnlyInThatCopy() {
        var services = Services()
        services[GreetingKey.self] = "hi"
        services.clock = FixedClock(Self.fixedTime)
        let other = Services().setting(GreetingKey.self, to: "hey")
        #expect(services[GreetingKey.self] == "hi")
        #expect(services.clock.now() == Self.fixedTime)
        #expect(other[GreetingKey.self] == "hey")
        #expect(other.clock is SystemClock, "a value type: setting one copy leaves the others")
    }

    @Test func theStoreKeepsTheServicesItWasBuiltWith() throws {
        #expect(try Store.example(services: Self.fixedClockServices).services.clock.now() == Self.fixedTime)
        #expect(try Store.example().services.clock is SystemClock)
    }

    @Test func theLoginMiddlewareStampsTheActionWithTheInjectedTime() throws {
        let store = try ExampleApp.store(services: Self.fixedClockServices)
        let reduced = Self.reducedActions(of: store)
        #expect(store.dispatchAndWait(action: Login(firstName: "Ada", lastName: "Lovelace")) == .reduced(version: 1))
        let stamp = "2027-01-15T08:00:00.500Z"
        #expect(store.state.user == User(firstName: "Ada", lastName: "Lovelace", loggedInAt: stamp))
        #expect(reduced.withLock { $0 }.first as? Login == Login(firstName: "Ada", lastName: "Lovelace", loggedInAt: stamp),
                "the time travels in the action, so the journal keeps it")
    }

    @Test func replayingTheStampedActionsGivesTheSameStateWithoutTheClock() throws {
        let original = try ExampleApp.store(services: Self.fixedClockServices)
        let reduced = Self.reducedActions(of: original)
        original.dispatch(action: Increase())
        original.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))

        // Another clock, as after a restart: the replay does not read it (no middleware runs).
        let restored = try ExampleApp.store(services: Services().setting(WallClockKey.self, to: FixedClock(Date(timeIntervalSince1970: 0))))
        for action in reduced.withLock({ $0 }) {
            restored.replay(action)
        }
        #expect(restored.state == original.state)
        #expect(restored.state.user?.loggedInAt == "2027-01-15T08:00:00.500Z")
    }
}
