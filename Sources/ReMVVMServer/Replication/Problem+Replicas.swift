extension Problem {
    /// 503: this replica is not following the shared log (catching up after start, the log
    /// unreachable, or stopped at an entry it cannot apply): it takes no writes now.
    static func replicaNotReady(_ reason: String) -> Problem {
        serviceUnavailable(
            "replica-not-ready",
            detail: "this replica is not following the shared log right now (\(reason)); nothing was appended, retry later or on another replica"
        )
    }

    /// 503: the connection to the shared log broke while a commit was on its way; whether the
    /// actions are stored is unknown.
    static var appendOutcomeUnknown: Problem {
        serviceUnavailable(
            "outcome-unknown",
            detail: "the connection to the shared log broke while the actions were being committed: they may or may not be stored; retry with the same Idempotency-Key to learn which (without one, look at GET /actions)"
        )
    }

    /// 503: the actions are stored in the shared log as `version` but this replica has not
    /// applied them within the wait.
    static func notYetApplied(_ version: UInt64) -> Problem {
        var problem = serviceUnavailable(
            "not-yet-applied",
            detail: "the actions are stored in the shared log up to version \(version), but this replica has not applied them yet; do not send them again (a retry with the same Idempotency-Key gets the answer)"
        )
        problem.currentVersion = version
        return problem
    }

    /// 422: the shared log's database refused to store the actions' data (PostgreSQL's `jsonb`
    /// cannot hold `\u0000` in a string, for one); nothing was appended, and sending the same
    /// data again fails the same way.
    static func actionNotStorable(_ reason: String) -> Problem {
        Problem(
            type: type("action-not-storable"),
            title: "Action cannot be stored",
            status: 422,
            detail: "the shared log cannot store these actions, so nothing was appended: \(reason)"
        )
    }
}
