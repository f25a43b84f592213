import ExampleApp
import Foundation
import Journal
import ReMVVM
@testable import ReMVVMServer
import Testing

/// What a durable store refuses before its reducer (docs/http-api.md, "Durability"): an action
/// its journal could not hold as it was reduced.
@Suite struct ActionJournalCodecTests {
    /// An action with a number JSON has no text for when it is not finite.
    struct SetRatio: StoreAction, Codable {
        var value: Double
    }

    static let codec: ActionJournalCodec = {
        var registry = ExampleApp.actions
        registry.register(SetRatio.self, as: "setRatio")
        return ActionJournalCodec(registry: registry)
    }()

    @Test func anActionWhosePayloadDoesNotEncodeIsRefusedNamingIt() throws {
        let refusal = try #require(Self.codec.refusal(of: SetRatio(value: .nan)))
        #expect(refusal.contains(#""setRatio""#) && refusal.contains("does not encode as JSON"), "\(refusal)")
        #expect(Self.codec.refusal(of: SetRatio(value: .infinity)) != nil)
        // Before, its record held `{}`: a replay rebuilt another state, or refused the start.
        #expect(Self.codec.refusal(of: SetRatio(value: 0.5)) == nil)
        #expect(Self.codec.record(of: SetRatio(value: 0.5), version: 1, time: 0)?.payload == Array(#"{"value":0.5}"#.utf8))
    }

    @Test func registeredActionsWithoutFieldsAndUnregisteredOnesAreToldApart() throws {
        struct Unregistered: StoreAction {}
        #expect(Self.codec.refusal(of: Increase()) == nil)
        #expect(Self.codec.refusal(of: Unregistered())?.contains("has no wire name") == true)
    }

    /// Through a store: the refused action is not reduced, so the journal has no gap.
    @Test func aStoreWithTheCheckReducesNothingOfTheRefusedAction() throws {
        let store = try Store.example()
        store.addReduceCheck(Self.codec.reduceCheck)
        guard case .refused(let reason, index: 0) = store.dispatchAndWait(action: SetRatio(value: .nan)) else {
            Issue.record("not refused")
            return
        }
        #expect(reason.contains("setRatio"))
        #expect(store.version == 0)
        _ = store.dispatchAndWait(action: Increase())
        #expect(store.version == 1)
    }
}
