internal import CMicroHTTPD

/// A request's head read once, on the access handler's first call: in one pass over the header
/// fields libmicrohttpd parsed, the framing check (``FramingFields``) and the fields the
/// responder reads (``HTTPHeaders``, each field marked with its ``KnownFieldNames`` bit).
///
/// The fields are kept on the connection (``ConnectionRecord/keepHeaders(_:)``) until the
/// request is answered, on a later call. Two passes (one to check, one to read) cost about
/// 500 instructions a request more: libmicrohttpd's walk over its list and the matching of
/// every name, twice.
enum RequestHead {
    /// What the head says.
    struct Reading {
        /// Why the head is refused (nil if it is sound).
        let violation: RequestFailure?
        /// The (first) `Content-Length`'s number: nil when there is none or it is not a number.
        let contentLength: UInt64?
        /// Whether a chunked body follows (`Transfer-Encoding: chunked`; any other coding is a
        /// ``violation``).
        let isChunked: Bool
        /// The fields, in the order received.
        let headers: HTTPHeaders
    }

    /// Reads `connection`'s request head. With `repeated` (the connection's), a long value the
    /// connection's recent requests carried too is that same string again.
    static func read(
        of connection: OpaquePointer,
        isHTTP11: Bool,
        singleFields: SingleFields,
        repeated: RepeatedFieldValues? = nil
    ) -> Reading {
        var collection = FieldCollection(framing: FramingFields(singleFields: singleFields), values: repeated?.values)
        collection.fields.reserveCapacity(Int(MHD_get_connection_values(connection, .HEADER_KIND, nil, nil)))
        _ = withUnsafeMutablePointer(to: &collection) { pointer in
            // A closure that captures nothing converts to the C function libmicrohttpd calls for
            // each field (`MHD_KeyValueIteratorN`), with `cls` the collection behind `pointer`:
            // no visitor closure with a capture (a possible allocation each request).
            MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls else { return .NO }
                cls.assumingMemoryBound(to: FieldCollection.self).pointee.add(key, keySize, value, valueSize)
                return .YES
            }, pointer)
        }
        return Reading(
            violation: collection.framing.violation(isHTTP11: isHTTP11),
            contentLength: collection.framing.contentLength,
            isChunked: !collection.framing.transferEncodings.isEmpty,
            headers: HTTPHeaders(fields: collection.fields, knownNames: collection.knownNames)
        )
    }

    /// What the field callback fills.
    private struct FieldCollection {
        var framing: FramingFields
        var fields: [HTTPHeaders.Field] = []
        /// The connection's kept long values, if given.
        let values: UnsafeMutablePointer<RepeatedFieldValues.Values>?
        /// The bits of the known names seen (``KnownFieldNames``).
        var knownNames: UInt32 = 0

        init(framing: FramingFields, values: UnsafeMutablePointer<RepeatedFieldValues.Values>?) {
            self.framing = framing
            self.values = values
        }

        mutating func add(_ key: UnsafePointer<CChar>?, _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int) {
            let nameBytes = UnsafeRawBufferPointer(start: key, count: key == nil ? 0 : keySize)
            let valueBytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
            let known = key.map { KnownFieldNames.match($0, count: keySize) }
            let bit = known?.bit ?? 0
            framing.add(
                name: nameBytes,
                value: valueBytes,
                knownBit: bit,
                isOneLine: FramingFields.isOneLine(name: nameBytes, value: value.map(UnsafeRawPointer.init))
            )
            knownNames |= bit
            let name = known?.constant ?? decodedText(key, keySize)
            let text: String
            if let known = value.flatMap({ KnownFieldNames.value($0, count: valueSize, of: name) }) {
                text = known
            } else if let values, value != nil {
                text = values.pointee.value(valueBytes) { String(decoding: $0, as: UTF8.self) }
            } else {
                text = decodedText(value, valueSize)
            }
            fields.append(HTTPHeaders.Field(name: name, value: text, knownBit: bit))
        }
    }
}

/// The text of `count` bytes at `pointer` (invalid UTF-8 shown as U+FFFD), "" for none.
func decodedText(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
    guard let pointer else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
}
