import CommandKit
import Core
import ExperimentStatistics
import Foundation

/// The report as `journey experiments report` prints it: the exposure, the sample-ratio and
/// multiple-exposure lines, then a table per metric and guardrail.
extension ExperimentReport {
    public var text: String {
        var lines: [String] = []
        let users = variations.map { "\($0.variation) \($0.users)" }.joined(separator: ", ")
        lines.append("experiment \(experiment) as of \(Timestamp.format(now)): \(exposedUsers) users exposed")
        let weights = variations.map { Self.number($0.weight) }.joined(separator: ", ")
        lines.append("users analysed: \(users) (weights \(weights))")
        lines.append("sample ratio: " + sampleRatioText)
        lines.append(
            "multiple exposures: \(multipleExposures) users (\(Self.percent(multipleExposureShare))) saw more than one variation; excluded from the analysis"
        )
        if otherVariationUsers > 0 {
            lines.append(
                "other variations: \(otherVariationUsers) users saw only variations the experiment no longer has; excluded"
            )
        }
        var text = lines.joined(separator: "\n") + "\n"
        for result in metrics { text += "\n" + result.text }
        return text
    }

    private var sampleRatioText: String {
        let p = "p = \(Self.pValue(sampleRatio.pValue))"
        switch sampleRatio.status {
        case .ok:
            return "ok (\(p) against the weights)"
        case .mismatch:
            return
                "MISMATCH (\(p) < \(Self.number(Self.mismatchThreshold)) against the weights): the users are not split as configured, so the results below may be biased; find the cause first"
        case .notEnoughTraffic:
            return
                "not enough traffic to check (under \(Self.minimumUsers) users in \(sampleRatio.smallVariations.joined(separator: ", "))); \(p)"
        }
    }

    /// 0.5 → `0.5`, 1 → `1`: at most four decimals, no trailing zeros.
    static func number(_ value: Double) -> String {
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// 0.1234 → `12.3%`.
    static func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }

    /// Four decimals, or scientific notation below 0.0001.
    static func pValue(_ p: Double) -> String {
        p >= 0.0001 || p == 0 ? String(format: "%.4f", p) : String(format: "%.1e", p)
    }
}

extension ExperimentReport.MetricResult {
    var text: String {
        var header = "\(metric.isGuardrail ? "guardrail" : "metric") \(metric.key): \(metric.event)"
        if let condition = metric.condition { header += " where \(condition)" }
        let window = DurationText.format(.milliseconds(Int64((metric.window * 1000).rounded())))
        header += " within \(window)"
        var notes: [String] = []
        let rows = rows.map { row -> [String] in
            var cells = [row.variation, "\(row.users)", "\(row.conversions)", ExperimentReport.percent(row.rate)]
            switch (row.absolute, row.relative) {
            case (.success(let absolute)?, .success(let relative)?):
                cells += [
                    String(
                        format: "%+.1f pp [%+.1f, %+.1f]", absolute.estimate * 100, absolute.lower * 100,
                        absolute.upper * 100),
                    String(
                        format: "%+.1f%% [%+.1f%%, %+.1f%%]", relative.estimate * 100, relative.lower * 100,
                        relative.upper * 100),
                    ExperimentReport.pValue(relative.pValue),
                ]
            case (_, .failure(let reason)?):
                cells += ["-", "-", "-"]
                notes.append("\(row.variation): no estimate: \(reason.explanation)")
            default:
                cells += ["-", "-", "-"]
            }
            return cells
        }
        var text = header + "\n"
        text += TextTable.table(
            header: ["VARIATION", "USERS", "CONVERSIONS", "RATE", "Δ ABS [95% CI]", "Δ REL [95% CI]", "P-VALUE"],
            rows: rows)
        if openWindows > 0 {
            notes.append("\(openWindows) users were exposed less than \(window) ago: their windows are still open")
        }
        if conditionErrors > 0 {
            notes.append(
                "\(conditionErrors) events were not counted because their condition failed; the first: \(firstConditionError ?? "")"
            )
        }
        for note in notes { text += "  " + note + "\n" }
        return text
    }
}
