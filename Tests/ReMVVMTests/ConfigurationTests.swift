import ExampleApp
import ReMVVM
import Testing

/// Rules 10 and 16 of docs/store-semantics.md: configuration errors are thrown when the store is built.
@Suite struct ConfigurationTests {
    struct NeedsString: Middleware {
        func onNext(
            for state: String, action: Increase,
            interceptor: Interceptor<Increase, String>, dispatcher: any Dispatcher
        ) {
            interceptor.next()
        }
    }

    @Test func rule10_typedMiddlewareWhoseStateHasNoMapperIsAConfigurationError() {
        #expect {
            _ = try Store.example(middleware: [NeedsString()])
        } throws: { error in
            guard let error = error as? StoreConfigurationError else { return false }
            return error.code == .missingStateMapper
                && error.message.contains("NeedsString")
                && error.message.contains("Swift.String")
        }
    }

    @Test func typedMiddlewareOnAMappedSubstateOrTheRootIsAccepted() throws {
        struct OnCounter: Middleware {
            func onNext(for state: Int, action: Increase, interceptor: Interceptor<Increase, Int>, dispatcher: any Dispatcher) {
                interceptor.next()
            }
        }
        struct OnAny: Middleware {
            func onNext(for state: Any, action: Increase, interceptor: Interceptor<Increase, Any>, dispatcher: any Dispatcher) {
                interceptor.next()
            }
        }
        let store = try Store.example(middleware: [OnCounter(), OnAny()])
        store.dispatch(action: Increase())
        #expect(store.state.counter == 1)
    }

    @Test func rule16_twoMappersForTheSameTypeAreAConfigurationError() {
        #expect {
            _ = try Store(
                state: AppState(),
                reducer: AppReducer.self,
                stateMappers: [StateMapper(for: \.counter), StateMapper { $0.counter * 2 }]
            )
        } throws: { error in
            (error as? StoreConfigurationError)?.code == .duplicateStateMapper
                && "\(error)".contains("Swift.Int")
        }
    }
}
