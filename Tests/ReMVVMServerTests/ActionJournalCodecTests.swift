import ExampleApp
import Foundation
import Journal
import ConcurrencyKit
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
        store.addReduceCheck(handingOn: Self.codec.reduceCheck)
        guard case .refused(let reason, index: 0) = store.dispatchAndWait(action: SetRatio(value: .nan)) else {
            Issue.record("not refused")
            return
        }
        #expect(reason.contains("setRatio"))
        #expect(store.version == 0)
        _ = store.dispatchAndWait(action: Increase())
        #expect(store.version == 1)
    }

    /// Counts its encodings: the reduce check's encoding is the record's.
    struct CountedLabel: StoreAction, Codable {
        static let encodings = Lock(0)
        var text: String

        func encode(to encoder: any Encoder) throws {
            Self.encodings.withLock { $0 += 1 }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
        }
    }

    /// A durable store's check encodes an action with fields once; its record takes those bytes.
    @Test func theChecksEncodingIsTheRecordsPayload() throws {
        var registry = ExampleApp.actions
        registry.register(CountedLabel.self, as: "countedLabel")
        let codec = ActionJournalCodec(registry: registry)
        let store = try Store.example()
        store.addReduceCheck(handingOn: codec.reduceCheck)
        let records = Lock<[JournalRecord]>([])
        store.addPublicationHandler { publication in
            if let record = codec.record(for: publication, time: 7) { records.withLock { $0.append(record) } }
        }
        let before = CountedLabel.encodings.withLock { $0 }

        #expect(store.dispatchAndWait([CountedLabel(text: "a\u{1F600}"), Increase()]) == .reduced(version: 2))

        #expect(CountedLabel.encodings.withLock { $0 } - before == 1, "encoded once: for the check, not again for the record")
        let written = records.withLock { $0 }
        #expect(written.map(\.version) == [1, 2])
        #expect(written.first?.type == "countedLabel")
        #expect(written.first?.payload == Array("{\"text\":\"a\u{1F600}\"}".utf8))
        #expect(written.last?.payload == Array("{}".utf8))
    }

    /// A receipt another check made is not read as this codec's encoding.
    @Test func aReceiptOfAnotherIssuerIsNotThePayload() throws {
        final class Other: Sendable {}
        let other = Other()
        let publication = StatePublication(
            version: 3, action: Login(firstName: "Ada", lastName: "Lovelace"), state: AppState(counter: 0, user: nil),
            receipt: ReduceCheckReceipt(issuer: ObjectIdentifier(other), bytes: Array("[]".utf8))
        )
        let record = try #require(Self.codec.record(for: publication, time: 1))
        #expect(record.payload == Self.codec.record(of: Login(firstName: "Ada", lastName: "Lovelace"), version: 3, time: 1)?.payload)
        #expect(record.payload != Array("[]".utf8))
    }
}
