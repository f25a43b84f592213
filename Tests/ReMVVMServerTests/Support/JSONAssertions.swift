import ExampleApp
import Foundation
import HTTPTestSupport
import Testing

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

    /// The problem detail of an answer expected to have `status`; fails the test without one.
    func problem(status expected: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> ProblemBody {
        #expect(status == expected, "\(bodyString)", sourceLocation: sourceLocation)
        return try #require(problem, "\(bodyString)", sourceLocation: sourceLocation)
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
