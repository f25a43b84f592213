/// A parsed status line and header block.
struct ResponseHead {
    let status: Int
    let reason: String
    let headers: TestHTTPHeaders

    var isChunked: Bool {
        headers["Transfer-Encoding"]?.lowercased().contains("chunked") ?? false
    }

    var contentLength: Int? {
        headers["Content-Length"].flatMap { Int($0.trimmingSpaces) }
    }

    var closesConnection: Bool {
        headers["Connection"]?.lowercased().contains("close") ?? false
    }

    /// Reads a head from `socket`; skips interim 1xx responses.
    static func read(from socket: TestSocket, deadline: ContinuousClock.Instant) throws(TestHTTPError) -> ResponseHead {
        while true {
            guard let statusLine = try socket.readLine(deadline: deadline) else {
                throw TestHTTPError(code: .connectionClosed, message: "Connection closed before a response")
            }
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw TestHTTPError(code: .malformedResponse, message: "Bad status line: \(statusLine)")
            }
            var fields: [(name: String, value: String)] = []
            while let line = try socket.readLine(deadline: deadline), !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else {
                    throw TestHTTPError(code: .malformedResponse, message: "Bad header line: \(line)")
                }
                fields.append((name: String(line[..<colon]), value: String(line[line.index(after: colon)...]).trimmingSpaces))
            }
            if (100..<200).contains(status) {
                continue
            }
            return ResponseHead(
                status: status,
                reason: parts.count > 2 ? String(parts[2]) : "",
                headers: TestHTTPHeaders(fields)
            )
        }
    }

    /// The size line of the next chunk; 0 for the last one.
    static func readChunkSize(from socket: TestSocket, deadline: ContinuousClock.Instant) throws(TestHTTPError) -> Int? {
        guard let line = try socket.readLine(deadline: deadline) else { return nil }
        let hex = line.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces } ?? ""
        guard let size = Int(hex, radix: 16), size >= 0 else {
            throw TestHTTPError(code: .malformedResponse, message: "Bad chunk size line: \(line)")
        }
        return size
    }

    /// Reads the CRLF after a chunk's data, or the trailer section after the last chunk.
    static func readChunkEnd(from socket: TestSocket, last: Bool, deadline: ContinuousClock.Instant) throws(TestHTTPError) {
        if last {
            while let line = try socket.readLine(deadline: deadline), !line.isEmpty {}
        } else {
            guard try socket.readLine(deadline: deadline) == "" else {
                throw TestHTTPError(code: .malformedResponse, message: "Chunk data not followed by CRLF")
            }
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var view = Substring(self)
        while view.first == " " || view.first == "\t" { view.removeFirst() }
        while view.last == " " || view.last == "\t" { view.removeLast() }
        return String(view)
    }
}
