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

/// Logs a user in. Wire name `login`, payload `{"firstName": …, "lastName": …}`, and
/// `"loggedInAt"` once ``LoginMiddleware`` stamped it.
public struct Login: StoreAction, Codable, Equatable {
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String
    /// When the user logged in, RFC 3339 in UTC with milliseconds (`2027-01-15T08:00:00.000Z`):
    /// set by ``LoginMiddleware`` from the services' clock, so the journaled action carries the
    /// time and a replay through the reducers gives the same state. Nil when no middleware
    /// stamped it.
    public var loggedInAt: String?

    /// Creates the action.
    public init(firstName: String, lastName: String, loggedInAt: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.loggedInAt = loggedInAt
    }
}

/// Logs the user out. Wire name `logout`.
public struct Logout: StoreAction, Codable, Equatable {
    /// Creates the action.
    public init() {}
}
