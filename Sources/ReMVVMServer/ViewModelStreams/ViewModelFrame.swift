/// The server-sent events of view-model streams (`docs/http-api.md`, "View-model streams and
/// commands"); `data` is one line of JSON and names the view model (and its key), so that one
/// connection can carry several:
///
///     id: 42
///     event: viewmodel
///     data: {"version":42,"name":"counter","viewModel":{"counter":"7"}}
///
///     id: 43
///     event: unavailable
///     data: {"version":43,"name":"greetings"}
///
/// When one version sends several events on one connection, only the last carries `id:`
/// (``withoutID(_:)`` for the others): an `EventSource` keeps the previous id for an event
/// without one, so a client cut off between them resumes from the version before and gets the
/// rest again, instead of from a version it has only part of.
enum ViewModelFrame {
    /// The event for a view model `json` made at `version`.
    static func viewModel(_ json: [UInt8], version: UInt64, id: String, name: String, key: String?) -> [UInt8] {
        var frame = head(event: "viewmodel", version: version, id: id, name: name, key: key)
        frame.reserveCapacity(frame.count + json.count + 20)
        frame += Array(",\"viewModel\":".utf8)
        frame += json
        frame += Array("}\n\n".utf8)
        return frame
    }

    /// The event saying the factory makes no view model at `version`.
    static func unavailable(version: UInt64, id: String, name: String, key: String?) -> [UInt8] {
        head(event: "unavailable", version: version, id: id, name: name, key: key) + Array("}\n\n".utf8)
    }

    /// `frame` with `"reset":true` after the version in `data`: the first event of a stream whose
    /// `Last-Event-ID` could not be served.
    static func markedAsReset(_ frame: [UInt8]) -> [UInt8] {
        // `data: {"version":N` ends at the first comma or closing brace after "data: ".
        let data = Array("data: {\"version\":".utf8)
        guard let start = frame.firstRange(of: data)?.upperBound,
              let end = frame[start...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") })
        else { return frame }
        var marked = frame
        marked.insert(contentsOf: Array(",\"reset\":true".utf8), at: end)
        return marked
    }

    /// `frame` without its `id:` line: an event of a version whose last event on the same
    /// connection carries the id.
    static func withoutID(_ frame: [UInt8]) -> [UInt8] {
        let prefix = Array("id: ".utf8)
        guard frame.starts(with: prefix), let newline = frame.firstIndex(of: UInt8(ascii: "\n")) else { return frame }
        return Array(frame[(newline + 1)...])
    }

    private static func head(event: String, version: UInt64, id: String, name: String, key: String?) -> [UInt8] {
        var text = "id: \(id)\nevent: \(event)\ndata: {\"version\":\(version),\"name\":\(jsonString(name))"
        if let key {
            text += ",\"key\":\(jsonString(key))"
        }
        return Array(text.utf8)
    }

    /// `string` as a JSON string literal (quotes, backslashes and control characters escaped).
    static func jsonString(_ string: String) -> String {
        var escaped = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case let control where control.value < 0x20 || control.value == 0x2028 || control.value == 0x2029:
                escaped += "\\u" + String(repeating: "0", count: 4 - String(control.value, radix: 16).count)
                    + String(control.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
