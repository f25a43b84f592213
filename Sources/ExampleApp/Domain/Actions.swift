public import ReMVVM

/// Adds one to the counter. Wire name `increase`.
public struct Increase: StoreAction, Codable, Equatable {
    /// Creates the action.
    public init() {}
}

/// Subtracts one from the counter. Wire name `decrease`.
public struct Decrease: StoreAction, Codable, Equatable {
    /// Creates the action.
    public init() {}
}

/// Logs a user in. Wire name `login`, payload `{"firstName": …, "lastName": …}`.
public struct Login: StoreAction, Codable, Equatable {
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String

    /// Creates the action.
    public init(firstName: String, lastName: String) {
        self.firstName = firstName
        self.lastName = lastName
    }
}

/// Logs the user out. Wire name `logout`.
public struct Logout: StoreAction, Codable, Equatable {
    /// Creates the action.
    public init() {}
}
