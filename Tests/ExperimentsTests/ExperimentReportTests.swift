import Core
import ExperimentStatistics
import Experiments
import Foundation
import RuleEngine
import Store
import TestSupport
import Testing

/// One generated population for the tests below (building it takes a few seconds); used by one
/// test at a time (its store is one SQLite connection).
final class SharedPopulation: @unchecked Sendable {
    static let shared = SharedPopulation()
    private let lock = NSLock()
    private var population: GeneratedPopulation?

    func use<T>(_ body: (GeneratedPopulation) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if population == nil { population = try GeneratedPopulation(users: 3000, seed: 0x5EED_2026) }
        return try body(population!)
    }
}

/// `journey experiments report` over a generated population in a real store: the counts are
/// what the population did, the statistics gbstats' for those counts.
struct ExperimentReportTests {
    @Test func countsAreWhatThePopulationDid() throws {
        try SharedPopulation.shared.use { population in
            let report = try population.report()
            let truth = population.truth
            #expect(report.exposedUsers == truth.exposed)
            #expect(report.multipleExposures == truth.multiple)
            #expect(truth.multiple > 20, "the population has users exposed twice: \(truth.multiple)")
            #expect(report.variations.map(\.variation) == ["control", "short", "bold"])
            #expect(report.variations.map(\.users) == report.variations.map { truth.users[$0.variation] ?? -1 })
            #expect(report.metrics.map(\.metric.key) == ["opened", "first_action", "shared"])
            #expect(report.metrics.map(\.metric.isGuardrail) == [false, false, true])
            for result in report.metrics {
                let key = result.metric.key
                #expect(result.conditionErrors == 0, "\(key): \(result.firstConditionError ?? "")")
                for row in result.rows {
                    #expect(row.users == truth.users[row.variation], "\(key) \(row.variation) users")
                    #expect(
                        row.conversions == truth.conversions[key]?[row.variation],
                        "\(key) \(row.variation): \(row.conversions) conversions, the population made \(truth.conversions[key]?[row.variation] ?? -1)"
                    )
                    // The generator does what it says: each rate is near its true rate (4 standard
                    // errors; a window still open at `now` only lowers it a little).
                    let rate = GeneratedPopulation.rates[key]![row.variation]!
                    let error = (rate * (1 - rate) / Double(row.users)).squareRoot()
                    #expect(abs(row.rate - rate) < 4 * error + 0.01, "\(key) \(row.variation): \(row.rate) vs \(rate)")
                }
            }
        }
    }

    /// Users seen in more than one variation are counted once, apart, and in no variation.
    @Test func multipleExposuresAreCountedAndLeftOut() throws {
        try SharedPopulation.shared.use { population in
            let report = try population.report()
            let analysed = report.variations.map(\.users).reduce(0, +)
            #expect(analysed + report.multipleExposures == report.exposedUsers)
            #expect(report.multipleExposureShare == Double(report.multipleExposures) / Double(report.exposedUsers))
            #expect(report.json["multiple_exposures"]?["excluded"] == true)
            #expect(
                report.text.contains(
                    "multiple exposures: \(report.multipleExposures) users (\(String(format: "%.1f%%", report.multipleExposureShare * 100))) saw more than one variation; excluded from the analysis"
                ), "\(report.text)")
        }
    }

    /// As of an earlier moment, later exposures and events are not there yet.
    @Test func nowLeavesOutWhatCameLater() throws {
        try SharedPopulation.shared.use { population in
            let later = try population.report()
            let earlier = try population.report(now: GeneratedPopulation.now - 10 * GeneratedPopulation.day)
            #expect(earlier.exposedUsers < later.exposedUsers)
            #expect(earlier.exposedUsers > 0)
            for (before, after) in zip(earlier.metrics, later.metrics) {
                #expect(before.rows.map(\.conversions).reduce(0, +) < after.rows.map(\.conversions).reduce(0, +))
                #expect(before.openWindows > 0)
            }
        }
    }

    /// The estimates, intervals and p-values are gbstats' for the report's counts, to 1e-6
    /// (gbstats_reference.py with the python of scripts/gbstats).
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["JOURNEY_GBSTATS_PYTHON"] != nil,
            "set JOURNEY_GBSTATS_PYTHON to a python with gbstats 0.8.0 (scripts/test does: scripts/gbstats installs it)"
        ))
    func estimatesAreGBStats() throws {
        let python = ProcessInfo.processInfo.environment["JOURNEY_GBSTATS_PYTHON"]!
        try SharedPopulation.shared.use { population in
            let report = try population.report()
            var pairs: [(metric: String, row: ExperimentReport.Row, control: ExperimentReport.Row)] = []
            for result in report.metrics {
                for row in result.rows.dropFirst() { pairs.append((result.metric.key, row, result.rows[0])) }
            }
            let reference = try GBStatsReference.run(
                python: python,
                comparisons: pairs.map { ($0.control.users, $0.control.conversions, $0.row.users, $0.row.conversions) },
                sampleRatios: [(report.variations.map(\.users), report.variations.map(\.weight))])
            #expect(reference.comparisons.count == pairs.count)
            for (pair, answer) in zip(pairs, reference.comparisons) {
                for (kind, ours) in [("relative", pair.row.relative), ("absolute", pair.row.absolute)] {
                    let theirs = answer[kind]!
                    guard case .success(let estimate)? = ours else {
                        Issue.record("\(pair.metric) \(pair.row.variation) \(kind): no estimate, gbstats: \(theirs)")
                        continue
                    }
                    #expect(theirs["error_message"] == .null)
                    let place = "\(pair.metric) \(pair.row.variation) \(kind)"
                    #expect(
                        GBStatsReference.agrees(estimate.estimate, theirs["expected"]), "\(place) estimate \(estimate)")
                    #expect(GBStatsReference.agrees(estimate.lower, theirs["ci"]?[0]), "\(place) lower \(estimate)")
                    #expect(GBStatsReference.agrees(estimate.upper, theirs["ci"]?[1]), "\(place) upper \(estimate)")
                    #expect(GBStatsReference.agrees(estimate.pValue, theirs["p_value"]), "\(place) p \(estimate)")
                }
            }
            #expect(GBStatsReference.agrees(report.sampleRatio.pValue, reference.sampleRatios.first))
        }
    }
}

/// Runs Tests/ExperimentsTests/gbstats_reference.py: gbstats' answers for given counts.
enum GBStatsReference {
    struct Answer {
        var comparisons: [JSONObject]
        var sampleRatios: [JSON]
    }

    /// Within 1e-6 of gbstats' value, relative (absolute near 0).
    static func agrees(_ ours: Double, _ theirs: JSON?) -> Bool {
        guard let theirs = theirs?.numberValue else { return false }
        return abs(ours - theirs) <= 1e-6 * abs(theirs) + 1e-12
    }

    static func run(
        python: String, comparisons: [(Int, Int, Int, Int)], sampleRatios: [([Int], [Double])]
    ) throws -> Answer {
        let request: JSON = .object([
            "comparisons": .array(
                comparisons.map { pair in
                    .object([
                        "control": .array([.number(Double(pair.0)), .number(Double(pair.1))]),
                        "treatment": .array([.number(Double(pair.2)), .number(Double(pair.3))]),
                    ])
                }),
            "srm": .array(
                sampleRatios.map { users, weights in
                    .object([
                        "users": .array(users.map { .number(Double($0)) }), "weights": .array(weights.map(JSON.number)),
                    ])
                }),
        ])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Repository.root + "/Tests/ExperimentsTests/gbstats_reference.py"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(request.compactText.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ReferenceFailure(
                description: "\(python) gbstats_reference.py exited \(process.terminationStatus): \(message)")
        }
        let answer = try JSONParser().parse(Array(data))
        return Answer(
            comparisons: (answer["comparisons"]?.arrayValue ?? []).compactMap(\.objectValue),
            sampleRatios: answer["srm"]?.arrayValue ?? [])
    }

    struct ReferenceFailure: Error, CustomStringConvertible {
        var description: String
    }
}
