import ExampleApp
import HTTPTestSupport
import Journal
import MicroHTTP
@testable import ReMVVMServer
import Testing

/// `GET /metrics` (docs/http-api.md, "Observability"): Prometheus text with the contract's names,
/// routes labelled by pattern (bounded), answers counted when they are sent.
@Suite struct MetricsTests {
    private func sample(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        metricSample(text, name, labels)
    }

    private func scrape(_ live: LiveServer) throws -> String {
        let response = try live.get("/metrics")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        return response.bodyString
    }

    @Test(arguments: Transport.allCases)
    func requestsAreCountedByMethodRoutePatternAndCode(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        for _ in 0..<3 { _ = try live.post(#"{"type":"increase"}"#) }
        _ = try live.post(#"{"type":"nope"}"#)
        for _ in 0..<5 { _ = try live.get("/viewmodels/counter") }
        for index in 0..<20 { _ = try live.get("/nowhere/\(index)") }
        _ = try live.send(method: "DELETE", path: "/state")
        let text = try scrape(live)
        #expect(sample(text, "http_requests_total", ["method": "POST", "route": "/actions", "code": "200"]) == 3)
        #expect(sample(text, "http_requests_total", ["method": "POST", "route": "/actions", "code": "422"]) == 1)
        #expect(sample(text, "http_requests_total", ["method": "GET", "route": "/viewmodels/:name", "code": "200"]) == 5,
                "the route pattern, never the raw path")
        #expect(sample(text, "http_requests_total", ["method": "GET", "route": "unmatched", "code": "404"]) == 20,
                "unknown paths share one series")
        #expect(sample(text, "http_requests_total", ["method": "DELETE", "route": "unmatched", "code": "405"]) == 1)
        #expect(!text.contains("/nowhere"))
        #expect(sample(text, "http_request_duration_seconds_count", ["method": "POST", "route": "/actions"]) == 4)
        #expect(sample(text, "http_request_duration_seconds_bucket", ["method": "POST", "route": "/actions", "le": "+Inf"]) == 4)
        #expect(sample(text, "remvvm_store_version") == 3)
        #expect(sample(text, "remvvm_actions_total", ["type": "increase", "outcome": "applied"]) == 3)
        #expect((sample(text, "process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((sample(text, "process_open_fds") ?? 0) > 2)
        #expect((sample(text, "process_start_time_seconds") ?? 0) > 1_700_000_000)
        #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
    }

    /// Methods outside GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS count as `other`; their `405`
    /// counts as `unmatched`, since the route has no handle for them (docs/http-api.md,
    /// "Observability").
    @Test(arguments: Transport.allCases)
    func aMethodOutsideTheKnownOnesCountsAsOther(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.send(method: "PROPFIND", path: "/state").status == 405)
        #expect(try live.send(method: "PROPFIND", path: "/state").status == 405)
        let text = try scrape(live)
        #expect(sample(text, "http_requests_total", ["method": "other", "route": "unmatched", "code": "405"]) == 2)
        #expect(sample(text, "http_request_duration_seconds_count", ["method": "other", "route": "unmatched"]) == 2)
        #expect(!text.contains("PROPFIND"), "the method's name is not a label value")
    }

    /// The start time is a fixed number (restart alerts watch it change), and CPU time only grows.
    @Test func theProcessStartTimeIsTheSameAtEveryScrapeAndCPUTimeOnlyGrows() throws {
        let live = try LiveServer()
        var starts: Set<Double> = []
        var cpu: [Double] = []
        for _ in 0..<30 {
            let text = try scrape(live)
            starts.insert(try #require(sample(text, "process_start_time_seconds")))
            cpu.append(try #require(sample(text, "process_cpu_seconds_total")))
        }
        #expect(starts.count == 1, "\(starts)")
        #expect(cpu == cpu.sorted())
    }

    @Test func rejectedAndPreconditionFailedActionsAreCountedByOutcome() throws {
        let live = try LiveServer(middleware: [RejectSecondLogin()])
        let login = #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#
        _ = try live.post(login)
        _ = try live.post(login)
        _ = try live.post(#"{"type":"increase"}"#, headers: [("If-Match", live.etag(0))])
        let text = try scrape(live)
        #expect(sample(text, "remvvm_actions_total", ["type": "login", "outcome": "applied"]) == 1)
        #expect(sample(text, "remvvm_actions_total", ["type": "login", "outcome": "rejected"]) == 1)
        #expect(sample(text, "remvvm_actions_total", ["type": "increase", "outcome": "precondition_failed"]) == 1)
    }

    @Test func answersThatWaitForTheJournalAreCountedAndTheJournalIsMeasured() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        for _ in 0..<4 { _ = try live.post(#"{"type":"increase"}"#) }
        let text = try scrape(live)
        #expect(sample(text, "http_requests_total", ["method": "POST", "route": "/actions", "code": "200"]) == 4)
        #expect((sample(text, "remvvm_journal_commit_duration_seconds_count") ?? 0) >= 1)
        #expect(sample(text, "remvvm_journal_batch_actions_sum") == 4, "every action went through a commit")
    }

    @Test func subscribersAreAGaugeReadWhenScraped() throws {
        let live = try LiveServer()
        let subscriber = try live.subscribe()
        #expect(try subscriber.nextEvent(timeout: .seconds(5)) != nil)
        // The hub counts a subscriber once it has processed its arrival, which may end just after
        // the first event left.
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 })
        #expect(sample(try scrape(live), "remvvm_sse_subscribers", ["stream": "events"]) == 1)
        #expect(sample(try scrape(live), "http_requests_total", ["method": "GET", "route": "/events", "code": "200"]) == 1)
        subscriber.close()
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 0 })
        let text = try scrape(live)
        #expect(sample(text, "remvvm_sse_subscribers", ["stream": "events"]) == 0)
        #expect(sample(text, "remvvm_sse_disconnects_total", ["reason": "client_gone"]) == 1)
    }

    @Test func viewModelStreamsThatEndAreCountedToo() throws {
        let live = try LiveServer()
        let stream = try live.viewModelStream("/viewmodels/events?name=counter&name=greetings")
        #expect(try stream.nextEvent(timeout: .seconds(5)) != nil)
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(5)) { $0 == 1 })
        stream.close()
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(5)) { $0 == 0 })
        #expect(sample(try scrape(live), "remvvm_sse_disconnects_total", ["reason": "client_gone"]) == 1)
    }

    /// Answers made before routing (here 413: a body over the limit) count like the others.
    @Test func refusalsBeforeRoutingAreCounted() throws {
        let live = try LiveServer(maxBodyBytes: 64)
        let body = String(repeating: " ", count: 200) + #"{"type":"increase"}"#
        #expect(try live.post(body).status == 413)
        #expect(try live.post(body).status == 413)
        let text = try scrape(live)
        #expect(sample(text, "http_requests_total", ["method": "POST", "route": "/actions", "code": "413"]) == 2)
    }

    /// Handles are found by the route's number, and only under the pattern they were made for:
    /// the same number from a router with other patterns counts as unmatched, not as another route.
    @Test func aRouteIsCountedUnderItsOwnPatternOnly() {
        let metrics = ServiceMetrics(actionTypes: [:])
        var router = Router()
        router.add(.GET, "/state") { _, _ in Response(status: 200) }
        router.add(.GET, "/viewmodels/:name") { _, _ in Response(status: 200) }
        let http = metrics.httpMetrics(for: router)
        #expect(http.route(method: .GET, route: MatchedRoute(pattern: "/viewmodels/:name", number: 1)).route == "/viewmodels/:name")
        #expect(http.route(method: .HEAD, route: MatchedRoute(pattern: "/state", number: 0)).route == "/state")
        #expect(http.route(method: .GET, route: MatchedRoute(pattern: "/other", number: 1)).route == "unmatched")
        #expect(http.route(method: .GET, route: MatchedRoute(pattern: "/far", number: 99)).route == "unmatched")
        #expect(http.route(method: .POST, route: MatchedRoute(pattern: "/state", number: 0)).route == "unmatched")
    }

    /// Every family has a `# HELP` line (what `promtool check metrics` asks for) right before its
    /// `# TYPE` line, and the families come ordered by name; no help text is kept for a family
    /// the service does not register.
    @Test func everyFamilyIsExplainedAndTheFamiliesComeInNameOrder() throws {
        let metrics = ServiceMetrics(actionTypes: [ObjectIdentifier(Increase.self): "increase"])
        let route = metrics.httpMetrics(for: Router()).route(method: .GET, route: nil)
        route.count(status: 404)
        route.duration.record(.milliseconds(1))
        metrics.journalCommitted(actions: 3, duration: .milliseconds(1))
        // The store directory's families (a service serving many stores).
        let stores = StoreMetrics(metrics)
        stores.loaded(duration: .milliseconds(2))
        stores.loadFailed()
        stores.unloaded(reason: .idle)
        stores.record(loaded: 2, existing: 3)
        let text = String(decoding: metrics.render(storeVersion: 7, subscribers: 2, backendGauges: [
            BackendGauge(label: "remvvm_replica_lag_versions", value: 1),
            BackendGauge(label: "remvvm_replica_following", value: 1),
            BackendGauge(label: "remvvm_replica_registration_renewed_timestamp_seconds", value: 1),
            // Every loaded store's health together (`StoresHealth.gauges`).
            BackendGauge(label: "remvvm_stores_unhealthy", value: 0),
            BackendGauge(label: "remvvm_stores_lag_versions_max", value: 0),
        ]), as: UTF8.self)
        let lines = text.split(separator: "\n")
        var names: [String] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("# TYPE ") {
            let name = String(line.split(separator: " ")[2])
            names.append(name)
            let help = index > 0 ? lines[index - 1] : ""
            #expect(help.hasPrefix("# HELP \(name) ") && help.count > "# HELP \(name) ".count + 10, "\(name): \(help)")
        }
        #expect(names == names.sorted())
        #expect(Set(names) == Set(MetricFamilies.help.keys), "help texts without a family, or families without one")
        #expect(sample(text, "remvvm_store_version") == 7, "the samples stay with their family")
        #expect(sample(text, "http_requests_total", ["method": "GET", "route": "unmatched", "code": "404"]) == 1)
        #expect(lines.count == Set(lines).count, "nothing repeated")
    }

    @Test func eachOutcomeCountsInItsOwnColumn() {
        #expect(ServiceMetrics.ActionOutcome.allCases.enumerated().allSatisfy { $0.offset == $0.element.column })
    }

    @Test func withMetricsOffThereIsNoMetricsRoute() throws {
        let live = try LiveServer(metricsEnabled: false)
        #expect(try live.get("/metrics").status == 404)
    }
}
