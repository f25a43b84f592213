import ExampleApp
import Foundation
import HTTPTestSupport

/// A problem detail as a client reads it.
struct ProblemBody: Decodable, Equatable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var known: [String]?
    var field: String?
    var index: Int?
    var currentVersion: UInt64?
}

/// One `data:` payload of a state event.
struct StateEventBody: Decodable, Equatable {
    struct WireAction: Decodable, Equatable {
        var type: String
        var payload: [String: String]?
    }

    var version: UInt64
    var action: WireAction?
    var state: AppState
}

extension TestHTTPResponse {
    func decoded<Value: Decodable>(_ type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(body))
    }

    var problem: ProblemBody? {
        guard headers["Content-Type"] == "application/problem+json" else { return nil }
        return try? decoded(ProblemBody.self)
    }
}

extension SSEEvent {
    /// The version an event's id names: the number before the instance token (`5-3f9a2c1b` → 5).
    var version: UInt64? {
        id.flatMap { UInt64($0.prefix { $0 != "-" }) }
    }

    /// The `"version"` member of the event's data: on view-model streams, only the last event of
    /// a version carries the id.
    var dataVersion: UInt64? {
        struct Versioned: Decodable { var version: UInt64 }
        return try? JSONDecoder().decode(Versioned.self, from: Data(data.utf8)).version
    }

    var stateBody: StateEventBody? {
        try? JSONDecoder().decode(StateEventBody.self, from: Data(data.utf8))
    }
}
