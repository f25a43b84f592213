/// One version as the event hub sends it: its action's and its state's JSON, encoded once, and
/// its `state` frame, which holds both.
struct EncodedVersion: Sendable {
    /// The store version.
    let version: UInt64
    /// The action that made it, as a client would post it (``ActionWireEncoder``), or `null`
    /// for the version that was current when the service started.
    let action: [UInt8]
    /// The state's JSON.
    let state: [UInt8]
    /// The `state` event (``EventFrame/state(version:id:action:state:)``).
    let frame: [UInt8]
}
