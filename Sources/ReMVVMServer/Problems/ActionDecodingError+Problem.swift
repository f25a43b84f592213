extension ActionDecodingError {
    /// The problem detail a client gets for this error: 400 for malformed JSON, 422 otherwise (for a
    /// command's body, `invalid-command-body`).
    var problem: Problem {
        var detail = message
        if let index {
            detail = "action [\(index)]: " + detail + "; no action of the batch was applied"
        }
        switch code {
        case .malformedJSON:
            return Problem(title: "Bad Request", status: 400, detail: detail)
        case .invalidShape:
            return Problem(type: Problem.type("invalid-action"), title: "Invalid action", status: 422, detail: detail, index: index)
        case .unknownType:
            return Problem(
                type: Problem.type("unknown-action-type"), title: "Unknown action type", status: 422,
                detail: detail, known: known, index: index
            )
        case .invalidPayload:
            if let command {
                return Problem(
                    type: Problem.type("invalid-command-body"), title: "Invalid command body", status: 422,
                    detail: "the body of command \"\(command)\" does not decode: " + detail, field: field
                )
            }
            let action = actionType.map { " of \"\($0)\"" } ?? ""
            return Problem(
                type: Problem.type("invalid-payload"), title: "Invalid action payload", status: 422,
                detail: "the payload\(action) does not decode: " + detail, field: field, index: index
            )
        }
    }
}
