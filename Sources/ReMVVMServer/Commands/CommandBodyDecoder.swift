import StrictJSON

/// Decodes the body of a view-model command as strictly as `POST /actions` decodes an action's
/// payload: RFC 8259 exactly (400 otherwise), an empty body read as `{}`, and a field that does
/// not decode named in a 422. The body is read once (``StrictJSON/StrictJSONDecoder``).
enum CommandBodyDecoder {
    private static let decoder = StrictJSONValidator.decoder()

    /// `bytes` decoded into `Body`, or the reason it cannot be.
    static func decode<Body: Decodable>(_ type: Body.Type, from bytes: [UInt8], command: String) throws(ActionDecodingError) -> Body {
        do {
            guard bytes.contains(where: { !StrictJSONValidator.isWhitespace($0) }) else {
                // No body: decoded like an absent payload, so a command without required fields
                // needs none, and one with them names the first missing field.
                return try Body(from: EmptyPayloadDecoder(codingPath: []))
            }
            guard ActionBatchDecoder.isValidUTF8(bytes) else {
                throw ActionDecodingError.notUTF8
            }
            return try decoder.decode(Body.self, from: bytes)
        } catch let error as StrictJSONError {
            var failure = ActionDecodingError.notStrictJSON(error)
            failure.command = command
            throw failure
        } catch var error as ActionDecodingError {
            error.command = command
            throw error
        } catch let error as DecodingError {
            var failure = ActionDecodingError(error, inBatch: false)
            failure.command = command
            throw failure
        } catch {
            // A body type's own decoder threw something else: still the body's fault.
            var failure = ActionDecodingError(code: .invalidPayload, message: "\(error)")
            failure.command = command
            throw failure
        }
    }
}
