import Foundation
import JSONPatch

/// The store's state decoded into the app's `State` type, version after version: ``StateEvents``
/// with each state decoded (`JSONDecoder`). A state that does not decode throws
/// ``ClientError/Code/coding``.
public typealias StateUpdates<State: Decodable & Sendable> = DecodedEvents<StateEvents, StateUpdate<State>>

extension ReMVVMClient {
    /// The store's state as the app's `State`, version after version (``StateUpdates``), with
    /// deltas by default (see ``stateEvents(deltas:after:)``).
    public func states<State: Decodable & Sendable>(as type: State.Type, deltas: Bool = true, after tag: VersionTag? = nil) -> StateUpdates<State> {
        StateUpdates(events: stateEvents(deltas: deltas, after: tag)) { decoder, event in
            let state = try decoder.decode(State.self, fromJSON: event.state, what: "the state of version \(event.version)")
            return StateUpdate(version: event.version, tag: event.tag, isReset: event.isReset, action: event.action, state: state)
        }
    }
}

extension JSONDecoder {
    /// Decodes `json` as `type`; a failure is a ``ClientError/Code/coding`` naming `what`.
    func decode<Value: Decodable>(_ type: Value.Type, fromJSON json: JSON, what: String) throws -> Value {
        do {
            return try decode(type, from: Data(json.canonicalBytes))
        } catch {
            throw ClientError(.coding, "\(what) does not decode as \(Value.self): \(error)")
        }
    }
}
