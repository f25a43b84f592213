import Foundation
import Journal
import ReMVVM

/// Turns reduced actions into journal records and back, through the action registry's wire names.
///
/// One object for the service, shared by every store: a store's reduce check and publication
/// handler hold this one reference (the reduce check no context of its own at all), where a copy
/// of the registry in each store's closures was a few more cold cache lines per request to a store
/// touched once in a while.
final class ActionJournalCodec: Sendable {
    let registry: ActionRegistry
    private let decoder: ActionBatchDecoder

    init(registry: ActionRegistry) {
        self.registry = registry
        decoder = ActionBatchDecoder(registry: registry)
    }

    /// ``verdict(on:)`` as a store's reduce check (`Store.addReduceCheck(handingOn:)`): a closure
    /// over this object alone, the same for every store.
    var reduceCheck: @Sendable (any StoreAction) -> ReduceCheckVerdict {
        { [self] action in verdict(on: action) }
    }

    /// Whether `action` can be journaled: refused when its type has no wire name, or its payload
    /// does not encode as JSON (a `Double` that is not finite, an `encode(to:)` that throws) — its
    /// record would not hold it, and a replay would rebuild another state than the one served.
    /// A type without stored properties encodes once, at registration; an action with fields is
    /// encoded here, and the encoding handed on to its publication for the record
    /// (``record(for:time:)``): encoded once a reduce.
    func verdict(on action: any StoreAction) -> ReduceCheckVerdict {
        guard let name = registry.name(of: action) else {
            return .refuse("the action type \(String(reflecting: type(of: action))) has no wire name, so it cannot be journaled; register it in the ActionRegistry")
        }
        guard let entry = registry.entry(named: name), entry.constantPayload == nil else { return .admit }
        guard let payload = entry.payloadJSON(of: action) else {
            return .refuse("the payload of the action \"\(name)\" (\(String(reflecting: type(of: action)))) does not encode as JSON (a number that is not finite, or an encode(to:) that throws), so it cannot be journaled")
        }
        return .admitHandingOn(ReduceCheckReceipt(issuer: ObjectIdentifier(self), bytes: payload))
    }

    /// Why `action` cannot be journaled (``verdict(on:)``), or nil.
    func refusal(of action: any StoreAction) -> String? {
        verdict(on: action).refusal
    }

    /// The record of a reduce, or nil when its action has no wire name: its payload is the one
    /// this codec's reduce check encoded, when it did.
    func record(for publication: StatePublication<some Sendable>, time: Int64) -> JournalRecord? {
        record(of: publication.action, receipt: publication.receipt, version: publication.version, time: time)
    }

    /// The record of `action` reduced as `version`, or nil when it has no wire name; its payload
    /// is `receipt`'s bytes when this codec's reduce check made them (``verdict(on:)``).
    func record(of action: any StoreAction, receipt: ReduceCheckReceipt? = nil, version: UInt64, time: Int64) -> JournalRecord? {
        guard let name = registry.name(of: action) else { return nil }
        if let receipt, receipt.issuer == ObjectIdentifier(self) {
            return JournalRecord(version: version, type: name, payload: receipt.bytes, time: time)
        }
        guard let entry = registry.entry(named: name) else { return nil }
        let payload = entry.payloadJSON(of: action) ?? Array("{}".utf8)
        return JournalRecord(version: version, type: name, payload: payload, time: time)
    }

    /// The action a record holds; throws when its type is no longer registered or its payload
    /// does not decode.
    func action(from record: JournalRecord) throws -> any StoreAction {
        let envelope = ActionWireEncoder.envelope(type: record.type, payload: record.payload)
        do {
            guard let action = try decoder.decode(envelope).first else {
                throw ActionJournalCodecError(message: "no action")
            }
            return action
        } catch let error as ActionDecodingError {
            throw ActionJournalCodecError(message: error.message)
        }
    }

    /// Why `record` cannot be read, and what to do: its type is no longer registered, or its
    /// payload does not decode as the registered type (damaged, or of an incompatible version).
    func unreadable(_ record: JournalRecord, _ error: any Error) -> String {
        let advice = registry.entry(named: record.type) == nil
            ? "this build registers no such type: run a build that does"
            : "its payload does not decode as this build's type (damaged, or written by an incompatible version of it): run the build that wrote it, or restore from a backup"
        return "holds an action \"\(record.type)\" this build cannot read (\(error)); \(advice)"
    }

    /// Milliseconds since 1970 now.
    static func now() -> Int64 {
        MemoryStoreCatalog.now()
    }
}

struct ActionJournalCodecError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
