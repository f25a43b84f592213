/// An HTTP request method such as `GET` or `POST`; any token the client sends is representable.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as it appears on the request line, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its token; methods are case-sensitive (`get` is not `GET`).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The token, for logs and `Allow` headers.
    public var description: String { rawValue }

    /// `GET`: read a resource.
    public static let GET = HTTPMethod(rawValue: "GET")
    /// `HEAD`: like `GET`, without the body.
    public static let HEAD = HTTPMethod(rawValue: "HEAD")
    /// `POST`: submit data.
    public static let POST = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let PUT = HTTPMethod(rawValue: "PUT")
    /// `DELETE`: remove a resource.
    public static let DELETE = HTTPMethod(rawValue: "DELETE")
    /// `PATCH`: modify part of a resource.
    public static let PATCH = HTTPMethod(rawValue: "PATCH")
    /// `OPTIONS`: ask which methods a resource supports.
    public static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")
}

extension HTTPMethod {
    /// The conventional order used when listing methods (e.g. in `Allow`); others sort after, by name.
    static func canonicalOrder(_ lhs: HTTPMethod, _ rhs: HTTPMethod) -> Bool {
        let rank: (HTTPMethod) -> Int = { method in
            switch method.rawValue {
            case "GET": 0
            case "HEAD": 1
            case "POST": 2
            case "PUT": 3
            case "PATCH": 4
            case "DELETE": 5
            case "OPTIONS": 6
            default: 7
            }
        }
        let (left, right) = (rank(lhs), rank(rhs))
        return left != right ? left < right : lhs.rawValue < rhs.rawValue
    }
}
