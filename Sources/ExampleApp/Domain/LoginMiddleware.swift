public import Foundation
public import ReMVVM

/// Stamps every `login` with the time from its clock (`loggedInAt`), then passes it on.
///
/// The time goes into the action, not only into the state: the journal keeps the stamped action,
/// and a replay through the reducers alone (no middleware) gives the same state. Its clock comes
/// from ``ReMVVM/Services/clock``, so a test can fix it (``ExampleApp/middleware(services:)``).
public struct LoginMiddleware: Middleware {
    private let clock: any WallClock

    /// A middleware that reads the time from `clock`.
    public init(clock: any WallClock) {
        self.clock = clock
    }

    /// Passes `action` on with `loggedInAt` set to the clock's time.
    public func onNext(
        for state: User?,
        action: Login,
        interceptor: Interceptor<Login, User?>,
        dispatcher: any Dispatcher
    ) {
        var stamped = action
        stamped.user.loggedInAt = Self.timestamp(clock.now())
        interceptor.next(action: stamped)
    }

    /// `date` as `loggedInAt` writes it: RFC 3339 in UTC with milliseconds.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
