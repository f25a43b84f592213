import AccessControl
import MicroHTTP
import ReMVVM

extension ReMVVMService {
    /// `GET /stats`: version, server time, subscribers and process figures (``ServiceStats``).
    func getStats(in served: ServedStore<State>) -> Response {
        let stats = ServiceStats(
            version: served.publisher.snapshot.version,
            eventSubscribers: served.hub.subscriberCount,
            viewModelSubscribers: served.viewModelHub.subscriberCount,
            stores: storesHealth.map(ServiceStats.Stores.init)
        )
        guard let body = try? JSONCoding.encode(stats) else {
            return Problem(title: "Internal Server Error", status: 500, detail: "the statistics cannot be encoded").response
        }
        return JSONCoding.response(body, headers: [("Cache-Control", "no-store")])
    }

    /// `GET /access`: what the caller's token allows (``AccessAnswer``). Reached only with a
    /// token that authenticates when tokens are configured (``AccessGate`` lets any such token
    /// through here).
    func getAccess(_ request: Request) -> Response {
        let gate = AccessGate(authorizer: accessControl)
        switch accessControl.authorization(credential: request.headers[.authorization]) {
        case .success(let granted):
            let answer = AccessAnswer(
                accessControl: accessControl.isEnabled, scopes: granted.scopes.scopes.map(\.name), stores: AccessAnswer.stores(granted.stores)
            )
            let body = (try? JSONCoding.encode(answer)) ?? Array("{}".utf8)
            return JSONCoding.response(body, headers: [("Cache-Control", "no-store"), ("Vary", "Authorization")])
        case .failure:
            // Only when the router is called without the gate in front of it.
            return gate.refusal(for: request)
                ?? Problem(title: "Unauthorized", status: 401, detail: "the token does not authenticate").response
        }
    }
}
