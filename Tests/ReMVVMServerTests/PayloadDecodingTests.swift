import ExampleApp
import Foundation
import ReMVVM
@testable import ReMVVMServer
import Testing

/// `POST /actions` and command bodies are read once by the strict decoder: the 422 answers name
/// the field as before, the 400 answers keep the reader's wording, a number that does not fit is a
/// 422 at its field, and Foundation's types decode as `JSONDecoder` decodes them.
@Suite struct PayloadDecodingTests {
    /// An action with a small integer and Foundation values.
    struct Transfer: StoreAction, Codable, Equatable {
        let amount: Int8
        let link: URL?
    }

    private static let registry: ActionRegistry = {
        var registry = ExampleApp.actions
        registry.register(Transfer.self, as: "transfer")
        return registry
    }()

    /// The error `body` gives as an action (or a batch), or nil when it decodes.
    private func failure(_ body: String) -> ActionDecodingError? {
        do throws(ActionDecodingError) {
            _ = try ActionBatchDecoder(registry: Self.registry).decode(Array(body.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"{"type":"login","payload":{"firstName":"Ada"}}"#, "missing field payload.lastName"),
        (#"{"type":"login","payload":{"firstName":1,"lastName":"L"}}"#, "field payload.firstName has the wrong type; expected String"),
        (#"{"type":"login","payload":{"firstName":null,"lastName":"L"}}"#, "field payload.firstName is null; expected String"),
        (#"[{"type":"increase"},{"type":"login","payload":{"lastName":"L"}}]"#, "missing field payload.firstName"),
        (#"{"type":"login","payload":[]}"#, "field payload has the wrong type; expected Dictionary<String, Any>"),
        (#"{"type":"transfer","payload":{"amount":"1"}}"#, "field payload.amount has the wrong type; expected Int8"),
        (#"{"type":"transfer","payload":{"amount":1,"link":""}}"#, "field payload.link is invalid: Invalid URL string."),
    ])
    func aPayloadThatDoesNotDecodeNamesItsField(_ body: String, message: String) throws {
        let error = try #require(failure(body))
        #expect(error.code == .invalidPayload)
        #expect(error.message == message)
    }

    @Test(arguments: [
        (#"{"type":"transfer","payload":{"amount":300}}"#, "payload.amount", "300", nil),
        (#"{"type":"transfer","payload":{"amount":-129}}"#, "payload.amount", "-129", nil),
        (#"{"type":"transfer","payload":{"amount":1.5}}"#, "payload.amount", "1.5", nil),
        (#"[{"type":"increase"},{"type":"transfer","payload":{"amount":1e3}}]"#, "payload.amount", "1e3", 1),
    ] as [(String, String, String, Int?)])
    func aNumberThatDoesNotFitIs422AtItsField(_ body: String, field: String, literal: String, index: Int?) throws {
        let error = try #require(failure(body))
        #expect(error.code == .invalidPayload)
        #expect(error.field == field)
        #expect(error.index == index)
        #expect(error.message == "field \(field) is invalid: Parsed JSON number <\(literal)> does not fit in Int8.")
        #expect(try ActionBatchDecoder(registry: Self.registry).decode(Array(#"{"type":"transfer","payload":{"amount":1e2}}"#.utf8))
            .first as? Transfer == Transfer(amount: 100, link: nil))
    }

    @Test func aValueThatDoesNotFitTheWholeCommandBodyIs422AtTheRoot() throws {
        let error = try #require(throws: ActionDecodingError.self) {
            try CommandBodyDecoder.decode(Int8.self, from: Array("300".utf8), command: "count")
        }
        #expect(error.code == .invalidPayload)
        #expect(error.field == "(root)")
        #expect(error.message == "field (root) is invalid: Parsed JSON number <300> does not fit in Int8.")
    }

    @Test(arguments: [
        #"{"type":"increase",}"#, #"{"type":"login","payload":{"a":1,"a":2}}"#, #"[{"type":"increase"},]"#,
        #"{"type":"login","payload":{"\u00e9":1,"e\u0301":2}}"#, #"{"type":"increase"} x"#, #"{"type":"in\x"}"#,
        #"{"type":"increase","payload":01}"#, #"["#, "",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ])
    func aBodyThatIsNotStrictJSONKeepsTheReadersWording(_ body: String) throws {
        let reason = try #require(throws: StrictJSONValidator.Failure.self) { try StrictJSONValidator.validate(Array(body.utf8)) }
        let expected = body.isEmpty ? nil : "the body is not valid JSON: \(reason)"
        let action = try #require(failure(body))
        #expect(action.code == .malformedJSON)
        if let expected { #expect(action.message == expected) }
        let command = try #require(throws: ActionDecodingError.self) {
            try CommandBodyDecoder.decode(LoginForm.self, from: Array(body.utf8), command: "login")
        }
        #expect(command.code == (body.isEmpty ? .invalidPayload : .malformedJSON))
        if let expected { #expect(command.message == expected) }
    }
}
