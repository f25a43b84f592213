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

/// Logs a user in. Wire name `login`, payload the ``User``: `{"firstName": …, "lastName": …}`, and
/// `"loggedInAt"` once ``LoginMiddleware`` stamped it.
public struct Login: StoreAction, Codable, Equatable {
    /// Who logs in. `loggedInAt`, RFC 3339 in UTC with milliseconds (`2027-01-15T08:00:00.000Z`),
    /// is set by ``LoginMiddleware`` from the services' clock, so the journaled action carries the
    /// time and a replay through the reducers gives the same state; nil when no middleware
    /// stamped it.
    public var user: User

    /// Creates the action.
    public init(firstName: String, lastName: String, loggedInAt: String? = nil) {
        user = User(firstName: firstName, lastName: lastName, loggedInAt: loggedInAt)
    }

    /// Reads the payload: the user's fields, at the top level.
    public init(from decoder: any Decoder) throws {
        user = try User(from: decoder)
    }

    /// Writes the payload: the user's fields, at the top level.
    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
    }
}

/// Logs the user out. Wire name `logout`.
public struct Logout: StoreAction, Codable, Equatable {
    /// Creates the action.
    public init() {}
}
