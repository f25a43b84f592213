import Foundation
@testable import ReMVVMServer
import Testing

/// Foundation's types that `JSONDecoder` decodes specially (`URL`, Base64 `Data`, `Decimal`,
/// `Date`) decode the same from a command body read by the strict decoder: the same value, or
/// the same 422 (code, field and message) as `JSONDecoder`'s error would give.
@Suite struct FoundationValuesTests {
    struct Attachment: Codable, Equatable {
        let link: URL
        let bytes: Data
        let price: Decimal
        let at: Date
        let mirror: URL?
    }

    /// `body` decoded by the command path, and by `JSONDecoder` named as the command path names it.
    private func both(_ body: String) -> (strict: Result<Attachment, ActionDecodingError>, foundation: Result<Attachment, ActionDecodingError>) {
        let strict = Result { () throws(ActionDecodingError) in try CommandBodyDecoder.decode(Attachment.self, from: Array(body.utf8), command: "attach") }
        let foundation = Result { () throws(ActionDecodingError) in
            do {
                return try JSONDecoder().decode(Attachment.self, from: Data(body.utf8))
            } catch {
                var failure = ActionDecodingError(error as? DecodingError ?? .dataCorrupted(.init(codingPath: [], debugDescription: "\(error)")), inBatch: false)
                failure.command = "attach"
                throw failure
            }
        }
        return (strict, foundation)
    }

    @Test(arguments: [
        #"{"link":"https://example.com/a?b=1#c","bytes":"AQID/w==","price":12.345,"at":1000.5}"#,
        #"{"link":"mailto:ada@example.com","bytes":"","price":-0.0001,"at":-1e3,"mirror":"relative/path"}"#,
        #"{"link":"x","bytes":"AA==","price":123456789012345678901234567890,"at":0,"mirror":null}"#,
    ])
    func valuesDecodeAsJSONDecoderDecodesThem(_ body: String) throws {
        let (strict, foundation) = both(body)
        #expect(try strict.get() == foundation.get())
    }

    @Test(arguments: [
        #"{"link":"","bytes":"","price":1,"at":0}"#,
        #"{"link":null,"bytes":"","price":1,"at":0}"#,
        #"{"link":5,"bytes":"","price":1,"at":0}"#,
        #"{"link":"x","bytes":"!!","price":1,"at":0}"#,
        #"{"link":"x","bytes":null,"price":1,"at":0}"#,
        #"{"link":"x","bytes":[1],"price":1,"at":0}"#,
        #"{"link":"x","bytes":"","price":"1","at":0}"#,
        #"{"link":"x","bytes":"","price":null,"at":0}"#,
        #"{"link":"x","bytes":"","price":1,"at":null}"#,
        #"{"link":"x","bytes":"","price":1,"at":"2027-01-01"}"#,
        #"{"link":"x","bytes":"","price":1,"at":0,"mirror":7}"#,
        #"{"bytes":"","price":1,"at":0}"#,
    ])
    func errorsNameTheFieldAsJSONDecodersDo(_ body: String) throws {
        let (strict, foundation) = both(body)
        guard case .failure(let strictError) = strict, case .failure(let foundationError) = foundation else {
            Issue.record("expected both to fail: \(strict) \(foundation)")
            return
        }
        #expect(strictError.code == foundationError.code)
        #expect(strictError.field == foundationError.field)
        #expect(strictError.message == foundationError.message)
    }
}
