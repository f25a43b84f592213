import JSONPatch

/// The `data` of an event of the API: one JSON object, read member by member.
struct EventData {
    private let object: JSONObject
    private let description: String

    /// Parses `event`'s data; throws ``ClientError/Code/invalidResponse`` when it is not a JSON object.
    init(_ event: ServerSentEvent) throws {
        description = "a \(event.type) event"
        let json: JSON
        do {
            json = try JSON(parsing: event.data)
        } catch {
            throw ClientError(.invalidResponse, "\(description) whose data is not JSON: \(error)")
        }
        guard case .object(let object) = json else {
            throw ClientError(.invalidResponse, "\(description) whose data is not a JSON object")
        }
        self.object = object
    }

    /// The member `name`, nil when absent.
    func member(_ name: String) -> JSON? {
        object[name]
    }

    /// `version`, a whole number.
    func version() throws -> UInt64 {
        guard case .number(let text) = object["version"], let version = UInt64(text) else {
            throw ClientError(.invalidResponse, "\(description) without a whole \"version\"")
        }
        return version
    }

    /// `patch`, a JSON Patch.
    func patch() throws -> [PatchOperation] {
        guard let patch = object["patch"] else {
            throw ClientError(.invalidResponse, "\(description) without \"patch\"")
        }
        do {
            return try [PatchOperation](json: patch)
        } catch {
            throw ClientError(.invalidResponse, "\(description) whose patch is not a JSON Patch: \(error)")
        }
    }
}
