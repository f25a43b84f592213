/// An HTTP request method such as `GET` or `POST`; any token the client sends is representable.
///
/// The seven methods named here also carry a small code: two of them compare as two bytes, and
/// each constant is made in place (a stored `static let` is read through a one-time initializer
/// check and retained at every use, and a method is compared several times a request).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as it appears on the request line, e.g. `"GET"`.
    public let rawValue: String
    /// 1–7 for the methods named below (the token exactly so), 0 for any other.
    private let code: UInt8

    /// Creates a method from its token; methods are case-sensitive (`get` is not `GET`).
    public init(rawValue: String) {
        self.rawValue = rawValue
        code = switch rawValue {
        case "GET": 1
        case "HEAD": 2
        case "POST": 3
        case "PUT": 4
        case "DELETE": 5
        case "PATCH": 6
        case "OPTIONS": 7
        default: 0
        }
    }

    private init(_ rawValue: String, code: UInt8) {
        self.rawValue = rawValue
        self.code = code
    }

    /// Equal when the tokens are: by code when either is a named method (a named token always
    /// has its code, so codes differ exactly when the tokens do), else by text.
    public static func == (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool {
        lhs.code | rhs.code != 0 ? lhs.code == rhs.code : lhs.rawValue == rhs.rawValue
    }

    /// Hashes the token (equal methods have equal tokens).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// The token, for logs and `Allow` headers.
    public var description: String { rawValue }

    /// `GET`: read a resource.
    public static var GET: HTTPMethod { HTTPMethod("GET", code: 1) }
    /// `HEAD`: like `GET`, without the body.
    public static var HEAD: HTTPMethod { HTTPMethod("HEAD", code: 2) }
    /// `POST`: submit data.
    public static var POST: HTTPMethod { HTTPMethod("POST", code: 3) }
    /// `PUT`: replace a resource.
    public static var PUT: HTTPMethod { HTTPMethod("PUT", code: 4) }
    /// `DELETE`: remove a resource.
    public static var DELETE: HTTPMethod { HTTPMethod("DELETE", code: 5) }
    /// `PATCH`: modify part of a resource.
    public static var PATCH: HTTPMethod { HTTPMethod("PATCH", code: 6) }
    /// `OPTIONS`: ask which methods a resource supports.
    public static var OPTIONS: HTTPMethod { HTTPMethod("OPTIONS", code: 7) }
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
