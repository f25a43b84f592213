import Journal
import Logging
import MicroHTTP
import ReMVVM

/// Refusals (kind 0), failed commits (1) and failed key lookups (2) while the journal fails come
/// once per request: one line per kind, then a count.
let journalFailureLog = RateLimitedLog()

/// What a request dispatches, worked out once it may dispatch (after its `Idempotency-Key`, if
/// any, was claimed): the actions, or the answer it gets instead, with nothing dispatched.
enum DispatchPlan: Sendable {
    /// Dispatch these actions, in order, as one batch.
    case dispatch([any StoreAction])
    /// Dispatch nothing; answer this (not kept for an idempotency key).
    case answer(Response)
}

/// What ``ServedStore/planAndDispatch(_:if:)`` did. Not nested in the generic store: its
/// metadata would then be looked up by the store's state type on every request.
enum PlannedDispatch: Sendable {
    /// The plan's actions were dispatched; what the client gets.
    case dispatched(DispatchAnswer)
    /// The plan gave this answer instead, decided on the state of this version; nothing was
    /// dispatched.
    case instead(Response, decidedAt: UInt64)
}

extension ServedStore {
    /// The dispatch path of `POST /actions` and of view-model commands, after the body decoded:
    /// `Idempotency-Key` (400 when not valid; a retry gets the kept answer), then the backend's
    /// dispatch (``StoreBackend/dispatch(key:ifMatch:plan:in:)``): its health (503), `If-Match`
    /// (412), then `plan`'s actions as one exclusive batch — `200 {"version": N}` once N is
    /// durable, `202`, or the `422` of a middleware rejection.
    /// - Parameters:
    ///   - fingerprintPath: the path (and the query that selects what is dispatched) an
    ///     `Idempotency-Key` is bound to, with the method and the body: the same key on another
    ///     path is `422`. Relative to the store: a key means the same on `/actions` and on
    ///     `/stores/default/actions`.
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
        if let header = request.headers[.idempotencyKey] {
            guard let valid = IdempotencyKey(header: header, method: "POST", path: fingerprintPath, body: request.body) else {
                return Problem.invalidIdempotencyKey.response
            }
            key = valid
        }
        return backend.dispatch(key: key, ifMatch: request.headers.list(.ifMatch), plan: plan, in: self)
    }

    /// Dispatches in memory and answers at once, with nothing to wait for: `If-Match`, then the
    /// plan in one exclusive step; an answer for an idempotency key is kept in memory
    /// (``IdempotencyKeys``). How a store in memory dispatches, and a durable one that was not
    /// started (served without ``start()``: a router called directly).
    func dispatchAtOnce(key: IdempotencyKey?, ifMatch: String?, plan: @escaping @Sendable (State) -> DispatchPlan) -> Response {
        let condition = IfMatch.condition(ifMatch, tags: versionTags)
        guard let key else {
            switch planAndDispatch(plan, if: condition) {
            case .dispatched(let answer): return answer.response()
            case .instead(let response, _): return response
            }
        }
        if let answered = claim(key) { return answered }
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

    /// Plans on the store's newest state and dispatches the plan's actions, in one exclusive step.
    func planAndDispatch(
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
    func dispatch(_ actions: [any StoreAction], if condition: @escaping @Sendable (UInt64) -> Bool) -> DispatchAnswer {
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
            var answer = DispatchAnswer(problem: .actionNotJournaled(reason), isKept: index > 0)
            answer.version = index > 0 ? store.version : nil
            return answer
        case .accepted:
            return .accepted
        case .rejected(let reason, let index):
            var answer = DispatchAnswer(problem: .actionRejected(reason, index: index, of: actions.count), isKept: true)
            // The actions before the rejected one were applied: nothing that says so is sent
            // before they are durable (the store's version now covers them).
            answer.version = index > 0 ? store.version : nil
            return answer
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
        problem.headers["ETag"] = versionTags.etag(current)
        return problem
    }
}
