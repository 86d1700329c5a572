import FeatureKit
import Foundation
import Journey
import RuleEngine
import Store

/// The same dog's screens written in each locale, in one run: Today, the Journey overview (the
/// insight cards), a branch path, a block's preview and its content (the check with the dog's
/// name in place). Issue 41's bound: a view in `ru` costs at most 1.1× the same view in `en`.
struct LocaleViewBenchmark {
    var options: BenchmarkOptions

    /// The views measured, each one request's work.
    static let views: [(name: String, show: @Sendable (JourneyViews, String) throws -> Void)] = [
        ("Today", { _ = try $0.today($1) }),
        ("Journey overview", { _ = try $0.journey($1) }),
        ("Branch path", { _ = try $0.path($1, branch: "health") }),
        ("Preview", { _ = try $0.preview($1, block: "impulse-control-basics") }),
        ("Block content", { _ = try $0.block($1, block: "impulse-control-basics") }),
    ]

    /// The views of `dog` in every locale of the rules, `ru` beside `en`, in alternating rounds.
    func run(store: any StoreReader, evaluator: RuleEvaluator, now: Double, dog: String) throws {
        let catalog = evaluator.ruleSet.texts
        let codes = catalog.codes
        let views = Dictionary(
            uniqueKeysWithValues: codes.map { code in
                (code, Self.views(store: store, evaluator: evaluator, now: now, locale: code))
            })
        // Each locale's journey map is built once per store and kept: built here, not measured.
        for code in codes { try Self.render(views[code]!, dog: dog, iterations: 1) }
        var measures: [String: [Double]] = [:]
        for round in 0..<options.rounds {
            // Each round starts with another locale, so that none always runs first.
            for code in codes.indices.map({ codes[($0 + round) % codes.count] }) {
                for (name, show) in Self.views {
                    measures["\(name)\u{0}\(code)", default: []].append(
                        try microsecondsPerCall(options.iterations) { try show(views[code]!, dog) })
                }
            }
        }
        let m = measures.mapValues(median)
        func cell(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "—" }
        var rows: [[String]] = []
        var totals: [String: Double] = [:]
        for (name, _) in Self.views {
            var row = [name]
            for code in codes {
                let value = m["\(name)\u{0}\(code)"]
                totals[code, default: 0] += value ?? 0
                row.append(cell(value))
            }
            row.append(Self.ratio(m["\(name)\u{0}ru"], m["\(name)\u{0}en"]))
            rows.append(row)
        }
        rows.append(["all five"] + codes.map { cell(totals[$0]) } + [Self.ratio(totals["ru"], totals["en"])])
        print("\njourney-bench views: the same views in each locale, µs per view (medians)")
        print(table(header: ["view"] + codes.map { "\($0) µs" } + ["ru × en"], rows: rows))
    }

    /// `journey-bench views --only LOCALE`: the five views in `locale`, `iterations` times and
    /// nothing else measured, for an instruction count of one locale:
    /// `valgrind --tool=callgrind --toggle-collect='*LocaleViewBenchmark*render*' …`.
    func runOnly(_ locale: String, store: any StoreReader, evaluator: RuleEvaluator, now: Double, dog: String) throws {
        guard evaluator.ruleSet.texts.supports(locale) else {
            throw ViewBenchmark.Problem(
                description:
                    "--only \(locale): no texts for it (locales: \(evaluator.ruleSet.texts.codes.joined(separator: ", ")))"
            )
        }
        let views = Self.views(store: store, evaluator: evaluator, now: now, locale: locale)
        // Built and kept before the count: the locale's journey map (outside `render`).
        for (_, show) in Self.views { try show(views, dog) }
        try Self.render(views, dog: dog, iterations: options.iterations)
        print("journey-bench views --only \(locale): the five views rendered \(options.iterations) times")
    }

    static func views(store: any StoreReader, evaluator: RuleEvaluator, now: Double, locale: String) -> JourneyViews {
        JourneyViews(
            store: store, evaluator: evaluator, now: now,
            texts: RequestTexts(locale: locale, source: "benchmark", catalog: evaluator.ruleSet.texts))
    }

    /// Every view `iterations` times: the function the instruction count collects in.
    @inline(never)
    static func render(_ views: JourneyViews, dog: String, iterations: Int) throws {
        for _ in 0..<iterations {
            for (_, show) in Self.views { try show(views, dog) }
        }
    }

    static func ratio(_ ru: Double?, _ en: Double?) -> String {
        guard let ru, let en, en > 0 else { return "—" }
        return String(format: "%.2f×", ru / en)
    }
}
