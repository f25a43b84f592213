import Foundation
import Testing

extension LiveServer {
    /// The entries of `GET /actions` (with `query`, e.g. `?since=10&limit=3`) as JSON objects,
    /// after expecting a 200 whose body is an object with an `actions` array.
    func actionLog(_ query: String = "") throws -> [[String: Any]] {
        let response = try get("/actions" + query)
        #expect(response.status == 200)
        let log = try #require(
            try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "valid JSON: \(response.bodyString)"
        )
        return try #require(log["actions"] as? [[String: Any]])
    }
}
