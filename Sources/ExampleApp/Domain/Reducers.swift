public import ReMVVM
public import ReMVVMNavigation

/// The example's root reducer: each substate has its own reducer.
public enum AppReducer: Reducer {
    private static let navigation = NavigationReducer.compose(with: LoginModalReducer.self)

    /// Reduces `counter`, `user` and `navigation` with their own reducers.
    public static func reduce(state: AppState, with action: any StoreAction) -> AppState {
        AppState(
            counter: CounterReducer.reduce(state: state.counter, with: action),
            user: UserReducer.reduce(state: state.user, with: action),
            navigation: navigation.reduce(state: state.navigation, with: action)
        )
    }
}

/// Closes the `login` modal when a `login` is reduced while it is the screen shown: a successful
/// login dismisses the screen that asked for it, in the same version (no state in which the
/// modal shows a login screen that is no longer available), and a replay of the journal does the
/// same. A `login` with any other screen shown leaves the navigation as it is.
public enum LoginModalReducer: Reducer {
    /// `state` without its newest modal when that modal is the `login` screen.
    public static func reduce(state: NavigationState, with action: Login) -> NavigationState {
        guard state.modals.last?.screen == ExampleApp.loginScreen else { return state }
        return NavigationReducer.reduce(state: state, with: DismissModal())
    }
}

/// Reduces the counter: `increase` and `decrease`.
public enum CounterReducer: Reducer {
    private static let composed = IncreaseReducer.compose(with: DecreaseReducer.self)

    /// Applies `increase` or `decrease`; other actions leave the counter as it is.
    public static func reduce(state: Int, with action: any StoreAction) -> Int {
        composed.reduce(state: state, with: action)
    }
}

/// Adds one on `increase`.
public enum IncreaseReducer: Reducer {
    /// `state + 1`.
    public static func reduce(state: Int, with action: Increase) -> Int { state + 1 }
}

/// Subtracts one on `decrease`.
public enum DecreaseReducer: Reducer {
    /// `state - 1`.
    public static func reduce(state: Int, with action: Decrease) -> Int { state - 1 }
}

/// Reduces the user: `login` and `logout`.
public enum UserReducer: Reducer {
    private static let composed = LoginReducer.compose(with: LogoutReducer.self)

    /// Applies `login` or `logout`; other actions leave the user as it is.
    public static func reduce(state: User?, with action: any StoreAction) -> User? {
        composed.reduce(state: state, with: action)
    }
}

/// Sets the user on `login`.
public enum LoginReducer: Reducer {
    /// The user named by the action, logged in at the time the action carries.
    public static func reduce(state: User?, with action: Login) -> User? {
        action.user
    }
}

/// Clears the user on `logout`.
public enum LogoutReducer: Reducer {
    /// nil.
    public static func reduce(state: User?, with action: Logout) -> User? { nil }
}
