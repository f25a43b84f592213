/// One server-sent event for one state version:
///
///     id: 42
///     event: state
///     data: {"version":42,"action":{"type":"increase"},"state":{...}}
///
/// `data` is one line: compact JSON never contains a raw newline.
enum EventFrame {
    /// The frame for `version`; `action` is nil for the state a subscriber starts from before any reduce.
    static func state(version: UInt64, action: [UInt8]?, state: [UInt8]) -> [UInt8] {
        let versionText = String(version)
        var frame: [UInt8] = []
        frame.reserveCapacity(64 + (action?.count ?? 4) + state.count)
        frame += Array("id: \(versionText)\nevent: state\ndata: {\"version\":\(versionText),\"action\":".utf8)
        frame += action ?? Array("null".utf8)
        frame += Array(",\"state\":".utf8)
        frame += state
        frame += Array("}\n\n".utf8)
        return frame
    }
}
