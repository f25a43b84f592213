/// One server-sent event for one state version (the id is the version's tag, see ``VersionTags``):
///
///     id: 42
///     event: state
///     data: {"version":42,"action":{"type":"increase"},"state":{...}}
///
/// `data` is one line: compact JSON never contains a raw newline.
enum EventFrame {
    /// The frame for `version`; `action` is nil for the state a subscriber starts from before any reduce.
    static func state(version: UInt64, id: String, action: [UInt8]?, state: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(64 + (action?.count ?? 4) + state.count)
        frame += Array("id: \(id)\nevent: state\ndata: {\"version\":\(version),\"action\":".utf8)
        frame += action ?? Array("null".utf8)
        frame += Array(",\"state\":".utf8)
        frame += state
        frame += Array("}\n\n".utf8)
        return frame
    }

    /// The `retry:` field: how long a client waits before it reconnects, in milliseconds.
    static func retry(_ delay: Duration) -> [UInt8] {
        let milliseconds = max(0, delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        return Array("retry: \(milliseconds)\n".utf8)
    }
}
