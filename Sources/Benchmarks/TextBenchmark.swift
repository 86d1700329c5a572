import FeatureKit
import Foundation
import Locales
import RuleEngine

/// Rendering texts in each locale beside the default's: every key of the locale files once
/// (plurals with a count that takes each form), in alternating rounds, medians. The issue's
/// bound: a view in `ru` costs no more than 1.1× the same view in `en`.
struct TextBenchmark {
    var options: BenchmarkOptions

    func run(ruleSet: RuleSet) {
        let catalog = ruleSet.texts
        let keys = catalog.keys
        // Counts that take one, few, many and other in Russian (and one and other in English).
        let counts: [TextArgument] = [1, 3, 5, 21, 1.5, 8500]
        var arguments: [[String: TextArgument]] = []
        for (index, key) in keys.enumerated() {
            let names = catalog.locales.first?.texts[key]?.message.arguments ?? []
            arguments.append(
                Dictionary(uniqueKeysWithValues: names.map { ($0, counts[index % counts.count]) }))
        }
        var medians: [String: [Double]] = [:]
        for round in 0..<options.rounds {
            // Each round starts with another locale, so that none always runs first.
            let codes = catalog.codes
            let order = codes.indices.map { codes[($0 + round) % codes.count] }
            for locale in order {
                medians[locale, default: []].append(
                    measure {
                        for (key, args) in zip(keys, arguments) { _ = catalog.render(key, locale: locale, args) }
                    })
            }
        }
        let base = median(medians["en"] ?? [])
        print("\njourney-bench views: texts, every key of Rules/locales (\(keys.count) keys) rendered once per view")
        print(
            table(
                header: ["locale", "µs per view", "× en"],
                rows: catalog.codes.map { code in
                    let value = median(medians[code] ?? [])
                    return [
                        code, String(format: "%.2f", value), base > 0 ? String(format: "%.2f×", value / base) : "—",
                    ]
                }))
    }

    private func measure(_ body: () -> Void) -> Double { microsecondsPerCall(options.iterations, body) }
}
