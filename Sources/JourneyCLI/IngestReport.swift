import CommandKit
import Core
import Engine
import Foundation
import JQ

/// Prints ingest results as they come, a progress bar on a terminal, and the summary.
final class IngestReport {
    private let io: CommandIO
    private let json: Bool
    private let quiet: Bool
    private let totalBytes: Int?
    private let started = ContinuousClock.now
    private var lastProgress = ContinuousClock.now
    private var counts: [IngestResult.Status: Int] = [:]
    private var codes: [String: Int] = [:]
    private(set) var rejected = 0
    private var showsProgress: Bool { io.stderr.isTerminal }

    init(io: CommandIO, json: Bool, quiet: Bool, totalBytes: Int?) {
        self.io = io
        self.json = json
        self.quiet = quiet
        self.totalBytes = totalBytes
    }

    func add(_ results: [IngestResult], bytesRead: Int) {
        for result in results {
            counts[result.status, default: 0] += 1
            if result.status == .rejected {
                rejected += 1
                codes[result.code ?? "?", default: 0] += 1
            }
            guard !quiet || result.status == .rejected else { continue }
            io.stdout.line(json ? result.json.compactText : Self.text(result))
        }
        if showsProgress, ContinuousClock.now - lastProgress > .milliseconds(100) {
            lastProgress = ContinuousClock.now
            io.stderr.write("\r" + progressLine(bytesRead: bytesRead) + "\u{1B}[K")
        }
    }

    func finish() {
        if showsProgress { io.stderr.write("\r\u{1B}[K") }
        let total = counts.values.reduce(0, +)
        let elapsed = ContinuousClock.now - started
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 1e-9)
        var summary =
            "\(total) event\(total == 1 ? "" : "s"): \(counts[.accepted] ?? 0) accepted, \(counts[.duplicate] ?? 0) duplicate, \(rejected) rejected"
        if !codes.isEmpty {
            summary +=
                " (" + codes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        summary += String(format: " in %.2f s (%.0f events/s)", seconds, Double(total) / seconds)
        if json { io.stderr.line(summary) } else { io.stdout.line(summary) }
    }

    private func progressLine(bytesRead: Int) -> String {
        let total = counts.values.reduce(0, +)
        guard let totalBytes, totalBytes > 0 else { return "\(total) events" }
        let fraction = min(Double(bytesRead) / Double(totalBytes), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        return "[\(bar)] \(Int(fraction * 100))%  \(total) events"
    }

    /// `accepted   u-1/e-0001  weight_saved  record_added(weight), …`
    static func text(_ result: IngestResult) -> String {
        let status = result.status.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
        let id = "\(result.userID ?? "?")/\(result.eventID ?? "?")"
        let type = result.type ?? "-"
        switch result.status {
        case .accepted:
            let effects = result.effects.map(label).joined(separator: ", ")
            return "\(status) \(id)  \(type)  \(effects.isEmpty ? "no effects" : effects)"
        case .duplicate:
            return
                "\(status) \(id)  \(type)  already accepted; \(result.effects.count) original effect\(result.effects.count == 1 ? "" : "s")"
        case .rejected:
            return "\(status) \(id)  \(type)  \(result.code ?? "?"): \(result.message ?? "")"
        }
    }

    /// `record_added(weight)` from an effect's JSON.
    static func label(_ effect: JSON) -> String {
        let type = effect["type"]?.stringValue ?? "effect"
        if type == "habit_changed", let change = effect["change"]?.stringValue {
            let subject = effect["tracker_id"]?.stringValue ?? effect["category_id"]?.stringValue ?? ""
            let date = effect["date"]?.stringValue.map { " " + $0 } ?? ""
            return "\(change)(\(subject)\(date))"
        }
        let detail =
            ["kind", "name", "block_id", "step_id", "challenge_id", "reward"].lazy
            .compactMap { effect[$0]?.stringValue }.first
            ?? effect["dog"]?["id"]?.stringValue
        return detail.map { "\(type)(\($0))" } ?? type
    }
}
