/// A view model a stream made from one state, kept to tell whether the next state's differs.
///
/// Types that are `Equatable` are compared as values, so a state change that leaves the view
/// model equal costs one `==` and no encoding; other types are compared by their JSON (encoded
/// once per version, whatever the number of subscribers).
///
/// `@unchecked Sendable`: it holds a view model the factory made fresh for the stream, never
/// shared with anything else and only read (`==`, encoding) after it is made; it moves from the
/// HTTP worker that resolves a resume to the stream thread through a lock.
struct ViewModelValue: @unchecked Sendable {
    private let value: Any
    private let equalsValue: ((Any) -> Bool)?
    private let encodeValue: () throws -> [UInt8]

    /// A view model compared by `==`.
    static func equatable<ViewModel: Encodable & Equatable>(_ viewModel: ViewModel) -> ViewModelValue {
        ViewModelValue(
            value: viewModel,
            equalsValue: { other in (other as? ViewModel) == viewModel },
            encodeValue: { try JSONCoding.encode(viewModel) }
        )
    }

    /// A view model compared by its JSON.
    static func encodable<ViewModel: Encodable>(_ viewModel: ViewModel) -> ViewModelValue {
        ViewModelValue(value: viewModel, equalsValue: nil, encodeValue: { try JSONCoding.encode(viewModel) })
    }

    /// A view model the service rendered as JSON itself, compared by that JSON.
    static func json(_ bytes: [UInt8]) -> ViewModelValue {
        ViewModelValue(value: bytes, equalsValue: nil, encodeValue: { bytes })
    }

    /// A view model whose rendering failed with `error`: encoding it throws `error`, as
    /// encoding a view model that cannot be encoded does.
    static func failing(_ error: any Error) -> ViewModelValue {
        ViewModelValue(value: (), equalsValue: nil, encodeValue: { throw error })
    }

    /// Whether `self` equals `other` as values; nil when the type cannot say (not `Equatable`):
    /// compare the JSON then.
    func isEqual(to other: ViewModelValue) -> Bool? {
        equalsValue.map { $0(other.value) }
    }

    /// The view model as JSON (the service's compact, sorted-keys encoding).
    func json() throws -> [UInt8] {
        try encodeValue()
    }
}
