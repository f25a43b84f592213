import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `POST /viewmodels/<name>/commands/<command>[?key=K]`: the command turns the body and the
    /// view model of the store's newest state into actions, in one exclusive step with their dispatch, dispatched as `POST /actions`
    /// dispatches (same answers, `If-Match`, `Idempotency-Key`, durable answers).
    ///
    /// Refused without dispatching: an unknown view model or command (404 listing the known
    /// ones), a body that is not JSON (415, 400) or does not decode (422 naming the field), a view
    /// model the factory does not make now (404), a ``CommandRejection`` (422), and an action
    /// without a wire name (500: it could not be journaled).
    func postCommand(_ request: Request, in served: ServedStore<State>, viewModel name: String, command commandName: String) -> Response {
        let run: RegisteredCommand<State>.Bound
        switch boundCommand(request, viewModel: name, command: commandName) {
        case .success(let bound): run = bound
        case .failure(let problem): return problem.response
        }
        let key = request.query["key"]
        // The key selects the view model, so it is part of what an Idempotency-Key is bound to.
        let path = "/viewmodels/\(name)/commands/\(commandName)" + (key.map { "?key=\($0)" } ?? "")
        return served.dispatchRequest(request, fingerprintPath: path) { [self, services = served.store.services] state in
            plan(run, on: state, services: services, command: commandName, of: name, key: key)
        }
    }

    /// What refuses a command before any store is involved (an unknown view model or command, its
    /// body, its `Idempotency-Key`), or nil: asked before a write creates a store (`autoCreateStores`).
    func refusalOfCommand(_ request: Request, viewModel name: String, command commandName: String) -> Response? {
        if case .failure(let problem) = boundCommand(request, viewModel: name, command: commandName) {
            return problem.response
        }
        return Self.refusalOfIdempotencyKey(request)
    }

    /// The command `commandName` of the view model `name` bound to the request's body, or the
    /// problem that refuses it.
    private func boundCommand(
        _ request: Request, viewModel name: String, command commandName: String
    ) -> Result<RegisteredCommand<State>.Bound, Problem> {
        guard let command = viewModels.command(commandName, of: name) else {
            guard let known = viewModels.commandNames[name] else {
                return .failure(.unknownViewModel(name, known: viewModels.names))
            }
            return .failure(.unknownCommand(commandName, of: name, known: known))
        }
        let contentType = request.headers[.contentType]
        // No body and no Content-Type reads as `{}`; anything sent must be JSON.
        if !(request.body.isEmpty && contentType == nil), !Self.isJSON(contentType) {
            return .failure(.unsupportedMediaType(contentType))
        }
        do {
            return .success(try command.bind(request.body))
        } catch {
            logger.debug("refused the body of command \(name)/\(commandName): \(error.message)")
            return .failure(error.problem)
        }
    }

    /// Runs a decoded command on the view model of `state`: the store's newest, in the step that
    /// dispatches what it decides (see ``ServedStore/dispatchRequest(_:fingerprintPath:plan:)``).
    private func plan(
        _ run: RegisteredCommand<State>.Bound, on state: State, services: Services, command: String, of name: String, key: String?
    ) -> DispatchPlan {
        let actions: [any StoreAction]
        do {
            switch try run(state, key, services) {
            case .unavailable:
                return .answer(Problem.viewModelUnavailable(name, key: key).response)
            case .actions(let produced):
                actions = produced
            }
        } catch let rejection as CommandRejection {
            return .answer(Problem.commandRejected(command, reason: rejection.reason).response)
        } catch {
            logger.error("command \(name)/\(command) failed: \(error)")
            return .answer(Problem(
                title: "Internal Server Error", status: 500, detail: "command \"\(command)\" of view model \"\(name)\" failed"
            ).response)
        }
        for action in actions {
            if let reason = codec.refusal(of: action) {
                // Never dispatched: the journal, the event stream and the action log need wire names.
                logger.error("command \(name)/\(command) produced an action that cannot be journaled: \(reason)")
                return .answer(Problem.actionNotJournaled(
                    "command \"\(command)\" of view model \"\(name)\" produced an action that was not dispatched: \(reason)"
                ).response)
            }
        }
        return .dispatch(actions)
    }
}
