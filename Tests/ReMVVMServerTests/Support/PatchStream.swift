import HTTPTestSupport
import JSONPatch

/// A client of `GET /events?delta=json-patch` that keeps the state the stream describes: the
/// first event's state, then each `patch` applied to it, or a `state` event's state taken whole.
final class PatchStream {
    let client: SSEClient
    /// The state after the last event read (nil before the first).
    private(set) var state: JSON?
    /// The version of the last event read.
    private(set) var version: UInt64?
    /// How many events of each kind were read.
    private(set) var patchEvents = 0
    private(set) var stateEvents = 0

    /// Opens the stream; `lastEventId` goes in the `Last-Event-ID` header.
    init(port: Int, lastEventId: String? = nil, query: String = "delta=json-patch", receiveBufferSize: Int? = nil) throws {
        var headers = [("Accept", "text/event-stream")]
        if let lastEventId { headers.append(("Last-Event-ID", lastEventId)) }
        client = try SSEClient(port: port, path: "/events?\(query)", headers: headers, receiveBufferSize: receiveBufferSize)
    }

    /// Reads the next event and applies it; returns it with its data parsed, or nil when the
    /// stream ended. Throws when the event breaks the contract: an id that is not the version in
    /// `data`, a patch that does not apply, a patch as the first event.
    func next(timeout: Duration = .seconds(10)) throws -> (event: SSEEvent, data: JSON)? {
        guard let event = try client.nextEvent(timeout: timeout) else { return nil }
        let data = try JSON(parsing: event.data)
        guard case .number(let text)? = data["version"], let version = UInt64(text), event.version == version else {
            throw PatchStreamFailure("an event whose id does not name the version of its data: \(event)")
        }
        switch event.event {
        case "patch":
            guard let state, let patch = data["patch"] else {
                throw PatchStreamFailure("a patch event before any state, or without a patch: \(event.data)")
            }
            self.state = try apply([PatchOperation](json: patch), to: state)
            patchEvents += 1
        case "state":
            guard let state = data["state"] else { throw PatchStreamFailure("a state event without a state: \(event.data)") }
            self.state = state
            stateEvents += 1
        default:
            throw PatchStreamFailure("an event of another kind: \(event)")
        }
        self.version = version
        return (event, data)
    }
}

/// A patch stream that broke its contract.
struct PatchStreamFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
