import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// The most view models one `GET /viewmodels/events` stream may follow.
    static var maxViewModelsPerStream: Int { 64 }

    /// `GET /viewmodels/<name>/events[?key=K]`: the view model's stream — its current value (or
    /// `unavailable`) first, then an event only when its JSON changes.
    func getViewModelEvents(named name: String, _ request: Request, in served: ServedStore<State>) -> Response {
        streamViewModels([ViewModelSubject(name: name, key: request.query["key"])], request, in: served)
    }

    /// `GET /viewmodels/events?name=A&name=B[&key.A=K]`: several view models on one stream, each
    /// event naming its view model.
    func getViewModelEvents(_ request: Request, in served: ServedStore<State>) -> Response {
        let named = request.queryValues(named: "name")
        var names: [String] = []
        for name in named where !names.contains(name) {
            names.append(name)
        }
        guard !names.isEmpty else {
            return Problem(
                type: Problem.type("missing-view-model-names"),
                title: "Bad Request",
                status: 400,
                detail: "name the view models to stream: /viewmodels/events?name=A&name=B (key.A=K gives A a key); known: \(viewModels.names.joined(separator: ", "))",
                known: viewModels.names
            ).response
        }
        // Counted as sent, repeats included: the limit bounds the request, not only the stream.
        guard named.count <= Self.maxViewModelsPerStream else {
            return Problem(
                title: "Bad Request",
                status: 400,
                detail: "one stream names at most \(Self.maxViewModelsPerStream) view models; \(named.count) were named"
            ).response
        }
        return streamViewModels(names.map { ViewModelSubject(name: $0, key: request.query["key.\($0)"]) }, request, in: served)
    }

    private func streamViewModels(_ subjects: [ViewModelSubject], _ request: Request, in served: ServedStore<State>) -> Response {
        let unknown = subjects.map(\.name).filter { viewModels.maker(named: $0) == nil }
        guard unknown.isEmpty else {
            return Problem(
                type: Problem.type("unknown-view-model"),
                title: "Unknown view model",
                status: 404,
                detail: "no view model is registered as \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); known: \(viewModels.names.joined(separator: ", "))",
                known: viewModels.names
            ).response
        }
        let lastEventId = Self.lastEventId(of: request)
        let isHead = request.method == .HEAD
        return served.whenResumable(after: lastEventId) { [self] in
            guard !isHead else {
                // The head alone: no view models made, no state rebuilt, no subscriber.
                return Self.streamHead(isReset: lastEventId != nil && resumedVersion(after: lastEventId, in: served) == nil)
            }
            let start = viewModelStreamStart(for: subjects, resumingAfter: lastEventId, in: served)
            var response = Self.streamHead(isReset: { if case .reset = start { true } else { false } }())
            response.body = .stream(served.viewModelHub.subscribe(subjects, start: start))
            return response
        }
    }

    /// The version a view-model stream resuming after `lastEventId` continues from: nil when the
    /// id is no version of this store up to its newest (the stream then starts with a reset).
    private func resumedVersion(after lastEventId: String?, in served: ServedStore<State>) -> UInt64? {
        guard let lastEventId,
              let version = served.versionTags.version(ofEventId: Substring(lastEventId)),
              version <= served.publisher.snapshot.version else { return nil }
        return version
    }

    /// How a view-model stream resuming after `lastEventId` begins: with what changed since that
    /// version (the client's view models at that version are made again from the state then,
    /// found in the event ring or rebuilt from the journal), or with a reset when the id is not a
    /// version of this store.
    func viewModelStreamStart(
        for subjects: [ViewModelSubject], resumingAfter lastEventId: String?, in served: ServedStore<State>
    ) -> ViewModelSubscription.Start {
        guard lastEventId != nil else { return .current }
        guard let version = resumedVersion(after: lastEventId, in: served) else { return .reset }
        let newest = served.publisher.snapshot  // at or past `version`: versions only grow
        let state = version == newest.version ? newest.state : served.state(atVersion: version)
        var baselines: [ViewModelSubject: ViewModelBaseline] = [:]
        for subject in subjects {
            guard let state, let make = viewModels.maker(named: subject.name) else {
                baselines[subject] = .unknown
                continue
            }
            baselines[subject] = make(state, subject.key).map { .value($0) } ?? .unavailable
        }
        return .after(version: version, baselines: baselines)
    }
}
