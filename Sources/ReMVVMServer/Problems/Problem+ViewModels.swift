extension Problem {
    /// 404: no view model is registered as `name`; `known` lists those that are.
    static func unknownViewModel(_ name: String, known: [String]) -> Problem {
        Problem(
            type: type("unknown-view-model"),
            title: "Unknown view model",
            status: 404,
            detail: "no view model is registered as \"\(name)\"; known: \(known.joined(separator: ", "))",
            known: known
        )
    }

    /// 404: the state's factory makes no view model `name` (for `key`) now.
    static func viewModelUnavailable(_ name: String, key: String?) -> Problem {
        let keyText = key.map { " for key \"\($0)\"" } ?? ""
        return Problem(
            type: type("view-model-unavailable"),
            title: "View model not available",
            status: 404,
            detail: "view model \"\(name)\" is not available in the current state\(keyText)"
        )
    }

    /// 404: the view model `viewModel` has no command `command`; `known` lists those it has.
    static func unknownCommand(_ command: String, of viewModel: String, known: [String]) -> Problem {
        let knownText = known.isEmpty ? "it has none" : "known: \(known.joined(separator: ", "))"
        return Problem(
            type: type("unknown-command"),
            title: "Unknown command",
            status: 404,
            detail: "view model \"\(viewModel)\" has no command \"\(command)\"; \(knownText)",
            known: known
        )
    }

    /// 422: the command refused the request (``CommandRejection``); nothing was dispatched.
    static func commandRejected(_ command: String, reason: String) -> Problem {
        Problem(
            type: type("command-rejected"),
            title: "Command rejected",
            status: 422,
            detail: "command \"\(command)\" was rejected: \(reason); nothing was applied"
        )
    }
}
