public import JSONPatch

/// One view model as its stream delivers it, untyped: its JSON (``ViewModelUpdate`` of `JSON`).
public typealias ViewModelEvent = ViewModelUpdate<JSON>

/// One view model of the store (`GET /viewmodels/<name>/events[?key=K]`) as an `AsyncSequence` of
/// ``ViewModelEvent``s: the view model now, then each change, resuming like ``StateEvents`` across
/// reconnections and restarts (an event not above the last version handed out, and no reset, is
/// skipped). An unknown view model name throws ``ClientError`` with the server's `404` (its
/// ``ProblemDetails/known`` lists the names there are).
public struct ViewModelEvents: AsyncSequence, Sendable {
    /// A ``ViewModelEvent``.
    public typealias Element = ViewModelEvent

    let client: ReMVVMClient
    let name: String
    let key: String?

    /// Starts reading the stream.
    public func makeAsyncIterator() -> Iterator {
        let path = "/viewmodels/\(ReMVVMClient.percentEncoded(name))/events"
        let query: [(name: String, value: String)] = key.map { [("key", $0)] } ?? []
        return Iterator(source: ResumingEventSource(client: client, path: path, query: query))
    }

    /// Reads the view model's events.
    public struct Iterator: AsyncIteratorProtocol {
        var source: ResumingEventSource
        var lastVersion: UInt64?

        /// The view model's next change.
        public mutating func next() async throws -> ViewModelEvent? {
            while let event = try await source.next() {
                guard event.type == "viewmodel" || event.type == "unavailable" else { continue }
                let data = try EventData(event)
                let version = try data.version()
                let isReset = data.member("reset") == .bool(true)
                if let lastVersion, version <= lastVersion, !isReset { continue }
                lastVersion = version
                guard event.type == "viewmodel" else {
                    return ViewModelEvent(version: version, isReset: isReset, viewModel: nil)
                }
                guard let viewModel = data.member("viewModel") else {
                    throw ClientError(.invalidResponse, "a viewmodel event (version \(version)) without \"viewModel\"")
                }
                return ViewModelEvent(version: version, isReset: isReset, viewModel: viewModel)
            }
            return nil
        }
    }
}

extension ReMVVMClient {
    /// The view model `name` (for `key`, if given) as JSON, change after change (``ViewModelEvents``).
    public func viewModelEvents(_ name: String, key: String? = nil) -> ViewModelEvents {
        ViewModelEvents(client: self, name: name, key: key)
    }
}
