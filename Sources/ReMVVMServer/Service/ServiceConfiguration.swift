/// Settings of the service layer (the HTTP layer has its own ``MicroHTTP/HTTPServerConfiguration``).
public struct ServiceConfiguration: Sendable, Equatable {
    /// The most bytes of events a subscriber may fall behind before it is disconnected; it then
    /// reconnects and starts again from the current state. Default 1 MiB.
    public var subscriberBacklogBytes: Int = 1 << 20
    /// The body limit, repeated here so error messages can name it. Default 1 MiB.
    public var maxBodyBytes: Int = 1 << 20

    /// Creates the default settings.
    public init() {}
}
