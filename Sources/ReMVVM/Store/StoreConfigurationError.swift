public import CodedErrors

/// What is wrong with a store's configuration (``StoreConfigurationError``).
public enum StoreConfigurationErrorCode: Sendable, Equatable {
    /// Two state mappers produce the same substate type.
    case duplicateStateMapper
    /// A typed middleware works on a state type that no mapper produces.
    case missingStateMapper
}

extension StoreConfigurationError {
    static func duplicateStateMapper(typeName: String) -> StoreConfigurationError {
        StoreConfigurationError(
            code: .duplicateStateMapper,
            message: "two state mappers produce \(typeName); give the store exactly one mapper per substate type"
        )
    }

    static func missingStateMapper(middleware: String, stateType: String) -> StoreConfigurationError {
        StoreConfigurationError(
            code: .missingStateMapper,
            message: "middleware \(middleware) works on \(stateType), but no state mapper produces it; "
                + "add StateMapper(for: \\.<property>) for \(stateType) when building the store"
        )
    }
}

/// A store that cannot be built as configured; thrown by ``Store/init(state:reducer:middleware:stateMappers:services:)``.
///
/// These are stricter than ReMVVM, which crashes or silently skips in the same situations.
public typealias StoreConfigurationError = CodedError<StoreConfigurationErrorCode>
