/// Marker for every action that can be dispatched into a ``Store``.
///
/// Actions cross threads (an HTTP worker dispatches, another thread may reduce), so they are `Sendable`.
/// Actions that arrive over HTTP are also `Decodable` and registered under a wire name by the service.
public protocol StoreAction: Sendable {}
