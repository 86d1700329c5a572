import Core
import Foundation
import HTTP
import JQ
import TestSupport
import Testing

/// `GET /v1/experiments/{experiment}/report` (admin) from `journey serve` over loopback, after
/// the sample events: registering Q and Miso used `recommendation-v2` for their owners.
@Suite(.serialized) struct ExperimentReportRouteTests {
    @Test func theReportForAdminsOverHTTP() throws {
        let service = try LiveService(workers: 1)
        let client = service.client()
        #expect(try client.json("GET", "/v1/experiments/recommendation-v2/report").0 == 401)
        let (status, report) = try client.json("GET", "/v1/experiments/recommendation-v2/report", admin: true)
        #expect(status == 200, "\(report)")
        #expect(report["experiment"] == "recommendation-v2")
        #expect(report["exposed_users"] == 2)
        #expect(report["variations"]?.arrayValue?.map { $0["variation"] ?? .null } == ["control", "by-branch"])
        #expect(report["variations"]?.arrayValue?.map { $0["users"] ?? .null } == [1, 1])
        #expect(report["sample_ratio"]?["status"] == "not_enough_traffic")
        let metrics = report["metric_results"]?.arrayValue ?? []
        #expect(metrics.map { $0["key"] ?? .null } == ["started_a_block", "first_action", "came_back"])
        // owner-1 (by-branch) started blocks and opened the journey; owner-2 (control) opened it.
        #expect(metrics.map { $0["variations"]?[1]?["conversions"] ?? .null } == [1, 1, 1])
        #expect(metrics.map { $0["variations"]?[0]?["conversions"] ?? .null } == [0, 0, 1])
        let (missing, error) = try client.json("GET", "/v1/experiments/recommendation-v3/report", admin: true)
        #expect(missing == 404)
        #expect(error["code"] == "unknown_experiment")
        #expect(error["message"] == "no experiment `recommendation-v3`; did you mean `recommendation-v2`?")
        #expect(service.stop() == 0, "\(service.log)")
    }
}
