import Foundation
import JSONPatch

/// One view model as its stream delivers it, decoded into the app's type.
public struct ViewModelUpdate<ViewModel: Sendable>: Sendable {
    /// The version whose reduce changed the view model (the current one in the first event).
    public var version: UInt64
    /// True when the server could not resume where the client left off and sent the view model
    /// as it is now.
    public var isReset: Bool
    /// The view model; nil while the state's factory makes none (`event: unavailable`).
    public var viewModel: ViewModel?

    /// Creates an update.
    public init(version: UInt64, isReset: Bool, viewModel: ViewModel?) {
        self.version = version
        self.isReset = isReset
        self.viewModel = viewModel
    }
}

/// One view model of the store, decoded into the app's type, change after change: ``ViewModelEvents``
/// with each view model decoded (`JSONDecoder`).
public typealias ViewModelUpdates<ViewModel: Decodable & Sendable> = DecodedEvents<ViewModelEvents, ViewModelUpdate<ViewModel>>

extension ReMVVMClient {
    /// The view model `name` (for `key`, if given) as the app's `ViewModel` type, change after
    /// change (``ViewModelUpdates``); nil while the state makes none.
    public func viewModels<ViewModel: Decodable & Sendable>(_ name: String, key: String? = nil, as type: ViewModel.Type) -> ViewModelUpdates<ViewModel> {
        ViewModelUpdates(events: viewModelEvents(name, key: key)) { decoder, event in
            let viewModel = try event.viewModel.map {
                try decoder.decode(ViewModel.self, fromJSON: $0, what: "the view model of version \(event.version)")
            }
            return ViewModelUpdate(version: event.version, isReset: event.isReset, viewModel: viewModel)
        }
    }
}
