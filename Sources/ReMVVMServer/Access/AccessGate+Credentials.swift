import MicroHTTP

extension AccessGate {
    /// A credential looked up in a request: absent, present once (or several times with the same
    /// value), or present with different values.
    enum Found<Value: Equatable>: Equatable {
        case none
        case one(Value)
        case conflicting
    }

    /// The `Authorization` field. Two of them are ambiguous (it is not a list field), even when
    /// equal; walks the fields without building anything.
    static func authorizationField(of headers: HTTPHeaders) -> Found<String> {
        guard let field = headers.firstValue(named: .authorization) else { return .none }
        return field.isRepeated ? .conflicting : .one(field.value)
    }

    /// The value of the ``cookieName`` cookie in every `Cookie` field (RFC 6265 §5.4:
    /// `name=value` pairs separated by `;`, a value optionally in double quotes). A cookie sent
    /// twice (e.g. set for two paths) with different values is conflicting.
    static func cookieToken(in headers: HTTPHeaders) -> Found<Substring> {
        var found: Found<Substring> = .none
        for field in headers where isName(field.name, "cookie") {
            for pair in field.value.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == cookieName else { continue }
                var value = trimmed[trimmed.index(after: equals)...]
                while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
                if value.count >= 2, value.first == "\"", value.last == "\"" {
                    value = value.dropFirst().dropLast()
                }
                switch found {
                case .none: found = .one(value)
                case .one(let earlier) where earlier == value: break
                default: return .conflicting
                }
            }
        }
        return found
    }

    /// Whether the field name `name` is `lowercased` in any ASCII case, without allocating.
    private static func isName(_ name: String, _ lowercased: StaticString) -> Bool {
        guard name.utf8.count == lowercased.utf8CodeUnitCount else { return false }
        return lowercased.withUTF8Buffer { expected in
            zip(name.utf8, expected).allSatisfy { byte, wanted in
                ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte) == wanted
            }
        }
    }
}
