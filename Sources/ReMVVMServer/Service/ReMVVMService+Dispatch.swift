import Foundation
import Journal
import Logging
import MicroHTTP
import ReMVVM

/// Refusals (kind 0), failed commits (1) and failed key lookups (2) while the journal fails come
/// once per request: one line per kind, then a count.
private let journalFailureLog = RateLimitedLog()

/// What a request dispatches, worked out once it may dispatch (after its `Idempotency-Key`, if
/// any, was claimed): the actions, or the answer it gets instead, with nothing dispatched.
enum DispatchPlan: Sendable {
    /// Dispatch these actions, in order, as one batch.
    case dispatch([any StoreAction])
    /// Dispatch nothing; answer this (not kept for an idempotency key).
    case answer(Response)
}

/// What ``ReMVVMService/planAndDispatch(_:if:)`` did. Not nested in the generic service: its
/// metadata would then be looked up by the store's state type on every request.
private enum PlannedDispatch: Sendable {
    /// The plan's actions were dispatched; what the client gets.
    case dispatched(DispatchAnswer)
    /// The plan gave this answer instead, decided on the state of this version; nothing was
    /// dispatched.
    case instead(Response, decidedAt: UInt64)
}

extension ReMVVMService {
    /// The dispatch path of `POST /actions` and of view-model commands, after the body decoded:
    /// `Idempotency-Key` (400 when not valid; a retry gets the kept answer), the journal's health
    /// (503), `If-Match` (412), then `plan`'s actions as one exclusive batch — `200 {"version": N}`
    /// once N is durable, `202`, or the `422` of a middleware rejection.
    /// - Parameters:
    ///   - fingerprintPath: the path (and the query that selects what is dispatched) an
    ///     `Idempotency-Key` is bound to, with the method and the body: the same key on another
    ///     path is `422`.
    ///   - plan: the actions to dispatch given the state they will be dispatched on, or the answer
    ///     to give instead; called at most once, and only when the request gets that far. It runs
    ///     in the same exclusive step as the dispatch, on the store's newest state, so that
    ///     nothing comes between what a command decides from its view model and its actions (with
    ///     a journal that state may hold versions not yet durable: the answer waits for its own
    ///     version, so for them too). On a replica it runs on the applied state before the key is
    ///     looked up (its result is dropped when the key answers instead): only `If-Match` makes a
    ///     decision hold against every replica.
    func dispatchRequest(
        _ request: Request, fingerprintPath: String, plan: @escaping @Sendable (State) -> DispatchPlan
    ) -> Response {
        var key: IdempotencyKey?
        if let header = request.headers["Idempotency-Key"] {
            guard let valid = IdempotencyKey(header: header, method: "POST", path: fingerprintPath, body: request.body) else {
                return Problem.invalidIdempotencyKey.response
            }
            key = valid
        }
        if let replica {
            return replicaDispatch(request, key: key, replica: replica) { [publisher] in plan(publisher.snapshot.state) }
        }
        if let failure = durable?.journal.failure {
            // A key still gets what it is owed — the kept answer, 409 while its first request's
            // actions wait for a commit, 422 for another request — since that needs no commit.
            if let key {
                if let answered = claim(key) { return answered }
                idempotencyKeys.release(key)
            }
            // Nothing is acknowledged that is not durable: refuse before dispatching.
            journalFailureLog.log(.error, "refusing actions while the journal fails: \(failure)", to: logger)
            return Problem.journalUnavailable.response
        }
        let condition: @Sendable (UInt64) -> Bool
        if let ifMatch = request.headers.list("If-Match") {
            condition = Self.condition(ifMatch: ifMatch, tags: configuration.versionTags)
        } else {
            condition = { _ in true }
        }
        guard let key else {
            switch planAndDispatch(plan, if: condition) {
            case .dispatched(let answer):
                return answerWhenDurable(answer)
            case .instead(let response, let decidedAt):
                // A refusal must not be sent for a state a crash could still undo.
                return respond(response, onceDurable: decidedAt, what: Self.decidedOn(decidedAt))
            }
        }
        return dispatchOnce(if: condition, key: key, plan: plan)
    }

    /// Plans on the store's newest state and dispatches the plan's actions, in one exclusive step.
    private func planAndDispatch(
        _ plan: @escaping @Sendable (State) -> DispatchPlan, if condition: @escaping @Sendable (UInt64) -> Bool
    ) -> PlannedDispatch {
        store.exclusively { [self] in
            switch plan(store.state) {
            case .dispatch(let actions):
                .dispatched(dispatch(actions, if: condition))
            case .answer(let response):
                .instead(response, decidedAt: store.version)
            }
        }
    }

    /// What the log calls version `version` when a command's refusal was decided on it.
    private static func decidedOn(_ version: UInt64) -> String {
        "version \(version), which a command's answer was decided on,"
    }

    /// Dispatches a request that carries an idempotency key: replays the kept answer of an earlier
    /// one, or plans and dispatches it and keeps the answer in the same journal commit as the
    /// actions. An answer the plan gives instead of actions is not kept: a retry is planned anew.
    private func dispatchOnce(
        if condition: @escaping @Sendable (UInt64) -> Bool,
        key: IdempotencyKey,
        plan: @escaping @Sendable (State) -> DispatchPlan
    ) -> Response {
        if let answered = claim(key) { return answered }
        guard let journal = durable?.journal else {
            switch planAndDispatch(plan, if: condition) {
            case .instead(let response, _):
                idempotencyKeys.release(key)
                return response
            case .dispatched(let answer):
                if answer.isKept {
                    idempotencyKeys.keep(answer.kept(for: key, time: ActionJournalCodec.now())) { _ in }
                } else {
                    idempotencyKeys.release(key)
                }
                return answer.response()
            }
        }
        let pending = PendingResponse()
        let keys = idempotencyKeys
        let logger = logger
        store.exclusively { [self] in
            let actions: [any StoreAction]
            switch plan(store.state) {
            case .dispatch(let planned):
                actions = planned
            case .answer(let response):
                keys.release(key)
                respond(response, onceDurable: store.version, what: Self.decidedOn(store.version), to: pending)
                return
            }
            journal.beginGroup()
            let answer = dispatch(actions, if: condition)
            guard answer.isKept else {
                journal.endGroup(keeping: nil)
                keys.release(key)
                answerWhenDurable(answer, pending)
                return
            }
            let kept = answer.kept(for: key, time: ActionJournalCodec.now())
            keys.keep(kept) { result in
                pending.complete(Self.response(answer.response(), once: result, logger: logger, what: "the answer kept for an idempotency key"))
            }
            journal.endGroup(keeping: kept)
        }
        return Response(pending: pending)
    }

    /// Claims `key` for this request: nil when it is fresh (process the request, then keep or
    /// release the key); otherwise the answer instead — the kept answer of an earlier request
    /// (`Idempotent-Replayed`), 422 for a key used for another request, 409 while in flight, 503
    /// when the kept answers cannot be read.
    func claim(_ key: IdempotencyKey) -> Response? {
        response(for: idempotencyKeys.claim(key, now: ActionJournalCodec.now()))
    }

    /// What a request gets instead of being processed for `claim`, or nil when it is fresh.
    func response(for claim: IdempotencyKeys.Claim) -> Response? {
        switch claim {
        case .replay(let kept):
            return DispatchAnswer(kept: kept).response(replayed: true)
        case .reusedForAnotherRequest:
            return Problem.idempotencyKeyReused.response
        case .inFlight:
            return Problem.idempotencyKeyInFlight.response
        case .unavailable(let error):
            journalFailureLog.log(.error, "cannot look up an idempotency key: \(error)", kind: 2, to: logger)
            return Problem.journalUnavailable.response
        case .fresh:
            return nil
        }
    }

    /// Dispatches `actions` if `condition` holds, and says what the client gets.
    private func dispatch(_ actions: [any StoreAction], if condition: @escaping @Sendable (UInt64) -> Bool) -> DispatchAnswer {
        let outcome = store.dispatchAndWait(actions, if: condition)
        metrics?.countActions(actions, outcome: outcome)
        switch outcome {
        case .preconditionFailed(let current):
            // The 412 names the current version (its ETag too): it is sent once that version is
            // durable, like every other answer that names one.
            var answer = DispatchAnswer(problem: versionMismatch(current: current), isKept: false)
            answer.version = current
            return answer
        case .reduced(let version), .unchanged(let version):
            // Unchanged: nothing was reduced, and the version the client gets still holds.
            return .applied(version)
        case .refused(let reason, let index):
            logger.error("actions refused before the reducer: \(reason)")
            // Actions before the refused one were applied: the answer is sent once they are
            // durable, and kept for an idempotency key so that a retry does not apply them again.
            var answer = DispatchAnswer(problem: Problem(
                type: Problem.type("action-not-journaled"),
                title: "Action cannot be journaled",
                status: 500,
                detail: reason
            ), isKept: index > 0)
            answer.version = index > 0 ? store.version : nil
            return answer
        case .accepted:
            return DispatchAnswer(status: 202, body: Array("{\"accepted\":true}".utf8), isKept: true)
        case .rejected(let reason, let index):
            var answer = DispatchAnswer(problem: .actionRejected(reason, index: index, of: actions.count), isKept: true)
            // The actions before the rejected one were applied: nothing that says so is sent
            // before they are durable (the store's version now covers them).
            answer.version = index > 0 ? store.version : nil
            return answer
        }
    }

    /// The response for `answer`: at once in memory-only mode; with a journal, once the version it
    /// names is durable (503 if its commit fails).
    private func answerWhenDurable(_ answer: DispatchAnswer) -> Response {
        guard let version = answer.version else { return answer.response() }
        return respond(answer.response(), onceDurable: version, what: "version \(version)")
    }

    private func answerWhenDurable(_ answer: DispatchAnswer, _ pending: PendingResponse) {
        guard let version = answer.version else {
            pending.complete(answer.response())
            return
        }
        respond(answer.response(), onceDurable: version, what: "version \(version)", to: pending)
    }

    /// `response` once `version` is durable: at once in memory-only mode; with a journal, 503 if its
    /// commit fails (logged, naming `what`).
    private func respond(_ response: Response, onceDurable version: UInt64, what: String) -> Response {
        guard let journal = durable?.journal else { return response }
        // A lone request commits on this thread: no hand-over to the journal thread and back. Only
        // while its connection is the only one (``RequestConnections``).
        if requestConnections.isAlone, let result = journal.commitOnCallingThread(through: version) {
            return Self.response(response, once: result.map { _ in () }, logger: logger, what: what)
        }
        let pending = PendingResponse()
        respond(response, onceDurable: version, what: what, to: pending)
        return Response(pending: pending)
    }

    /// Completes `pending` with `response` once `version` is durable (see the method above).
    private func respond(_ response: Response, onceDurable version: UInt64, what: String, to pending: PendingResponse) {
        guard let journal = durable?.journal else {
            pending.complete(response)
            return
        }
        journal.whenDurable(version) { [logger] result in
            pending.complete(Self.response(response, once: result.map { _ in () }, logger: logger, what: what))
        }
    }

    /// `response` if its commit succeeded; 503 (logged) when it failed: nothing acknowledged that
    /// is not durable.
    private static func response(
        _ response: Response, once result: Result<Void, JournalError>, logger: Logger, what: String
    ) -> Response {
        switch result {
        case .success:
            return response
        case .failure(let error):
            journalFailureLog.log(.error, "\(what) is not durable: \(error)", kind: 1, to: logger)
            return Problem.journalCommitFailed.response
        }
    }

    /// 412: `If-Match` named a version other than `current`; nothing was applied.
    func versionMismatch(current: UInt64) -> Problem {
        var problem = Problem(
            type: Problem.type("version-mismatch"),
            title: "Precondition Failed",
            status: 412,
            detail: "If-Match names a version other than the current one, \(current); nothing was applied"
        )
        problem.currentVersion = current
        problem.headers["ETag"] = configuration.versionTags.etag(current)
        return problem
    }

    /// What `If-Match` accepts: `*` any version; otherwise the versions its strong tags of this
    /// instance name (weak tags never match: strong comparison, RFC 9110 §13.1.1).
    static func condition(ifMatch: String, tags: VersionTags) -> @Sendable (UInt64) -> Bool {
        guard let accepted = acceptedVersions(ifMatch: ifMatch, tags: tags) else { return { _ in true } }
        return { accepted.contains($0) }
    }

    /// The versions `If-Match` accepts, or nil for any (`*`); empty when it names none of this
    /// instance's strong tags.
    static func acceptedVersions(ifMatch: String, tags: VersionTags) -> Set<UInt64>? {
        var versions = Set<UInt64>()
        for candidate in ifMatch.split(separator: ",") {
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return nil }
            if let version = tags.version(ofETag: Substring(tag)) {
                versions.insert(version)
            }
        }
        return versions
    }
}
