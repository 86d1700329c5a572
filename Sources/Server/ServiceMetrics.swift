import CSupport
import Foundation

/// The service's counters in the shared control block, so that every worker adds to the same
/// numbers and `/metrics` on any worker tells about the whole service: requests by route and
/// status, latency histograms by route, and evaluations, errors, timeouts and fallbacks by rule.
///
/// `@unchecked Sendable`: all state is in shared memory, updated with atomic adds; the rule
/// index cache is guarded by a lock.
public final class ServiceMetrics: @unchecked Sendable {
    let block: ControlBlock

    /// Statuses counted one by one; others count as `other`.
    static let statuses = [200, 201, 204, 304, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503]
    /// Routes counted (the last index counts requests that matched none).
    static let maxRoutes = 64
    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    static let maxRules = 512
    static let ruleSlotSize = 256

    private let requestsOffset: Int
    private let histogramOffset: Int
    private let rulesOffset: Int
    private let lock = NSLock()
    private var ruleSlots: [String: Int] = [:]

    public init(block: ControlBlock) {
        self.block = block
        requestsOffset = ControlBlock.metricsOffset
        histogramOffset = requestsOffset + Self.maxRoutes * (Self.statuses.count + 1) * 8
        rulesOffset = histogramOffset + Self.maxRoutes * (Self.buckets.count + 3) * 8
        precondition(rulesOffset + Self.maxRules * Self.ruleSlotSize <= ControlBlock.size)
    }

    /// The index requests that match no route count under.
    public static var unmatchedRoute: Int { maxRoutes - 1 }

    // MARK: Recording

    /// Counts one answered request.
    public func recordRequest(route: Int, status: Int, seconds: Double) {
        let route = min(max(route, 0), Self.maxRoutes - 1)
        let statusIndex = Self.statuses.firstIndex(of: status) ?? Self.statuses.count
        _ = journey_atomic_add(word(requestsOffset, (route * (Self.statuses.count + 1) + statusIndex)), 1)
        let base = route * (Self.buckets.count + 3)
        let bucket = Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count
        _ = journey_atomic_add(word(histogramOffset, base + bucket), 1)
        _ = journey_atomic_add(word(histogramOffset, base + Self.buckets.count + 1), UInt64(max(seconds, 0) * 1e9))
        _ = journey_atomic_add(word(histogramOffset, base + Self.buckets.count + 2), 1)
    }

    /// Counts one evaluation of `rule`.
    public func recordEvaluation(rule: String, nanoseconds: UInt64, failed: Bool, timedOut: Bool, fallback: Bool) {
        guard let slot = ruleSlot(rule) else { return }
        let base = rulesOffset + slot * Self.ruleSlotSize + 144
        _ = journey_atomic_add(block.word(at: base), 1)
        if failed { _ = journey_atomic_add(block.word(at: base + 8), 1) }
        if timedOut { _ = journey_atomic_add(block.word(at: base + 16), 1) }
        if fallback { _ = journey_atomic_add(block.word(at: base + 24), 1) }
        _ = journey_atomic_add(block.word(at: base + 32), nanoseconds)
    }

    private func word(_ offset: Int, _ index: Int) -> UnsafeMutablePointer<UInt64> {
        block.word(at: offset + index * 8)
    }

    /// The slot of `rule`, claimed on first use (open addressing over the name's hash).
    private func ruleSlot(_ rule: String) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if let slot = ruleSlots[rule] { return slot }
        let hash = Self.hash(rule)
        for probe in 0..<Self.maxRules {
            let slot = Int((hash &+ UInt64(probe)) % UInt64(Self.maxRules))
            let offset = rulesOffset + slot * Self.ruleSlotSize
            let claimed = journey_atomic_load(block.word(at: offset))
            if claimed == 0, journey_atomic_compare_exchange(block.word(at: offset), 0, hash) {
                block.writeString(rule, at: offset + 8, capacity: 136)
                ruleSlots[rule] = slot
                return slot
            }
            if journey_atomic_load(block.word(at: offset)) == hash {
                // Another process may be writing the name it claimed: wait for it.
                var name = block.readString(at: offset + 8, capacity: 136)
                var spins = 0
                while name.isEmpty, spins < 1000 {
                    spins += 1
                    usleep(10)
                    name = block.readString(at: offset + 8, capacity: 136)
                }
                if name == rule {
                    ruleSlots[rule] = slot
                    return slot
                }
            }
        }
        return nil
    }

    private static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash | 1
    }

    // MARK: Reading

    /// Requests counted for `route` with `status` (for tests and the status page).
    public func requests(route: Int, status: Int) -> UInt64 {
        let statusIndex = Self.statuses.firstIndex(of: status) ?? Self.statuses.count
        return journey_atomic_load(word(requestsOffset, route * (Self.statuses.count + 1) + statusIndex))
    }

    /// Evaluation counters of every rule seen: evaluations, errors, timeouts, fallbacks, seconds.
    public func ruleCounters() -> [(
        rule: String, evaluations: UInt64, errors: UInt64, timeouts: UInt64,
        fallbacks: UInt64, seconds: Double
    )] {
        var result: [(String, UInt64, UInt64, UInt64, UInt64, Double)] = []
        for slot in 0..<Self.maxRules {
            let offset = rulesOffset + slot * Self.ruleSlotSize
            guard journey_atomic_load(block.word(at: offset)) != 0 else { continue }
            let name = block.readString(at: offset + 8, capacity: 136)
            guard !name.isEmpty else { continue }
            let base = offset + 144
            result.append(
                (
                    name, journey_atomic_load(block.word(at: base)), journey_atomic_load(block.word(at: base + 8)),
                    journey_atomic_load(block.word(at: base + 16)), journey_atomic_load(block.word(at: base + 24)),
                    Double(journey_atomic_load(block.word(at: base + 32))) / 1e9
                ))
        }
        return result.sorted { $0.0 < $1.0 }
    }

    /// The Prometheus text exposition of every counter; `routeNames[i]` labels route `i`.
    public func prometheusText(routeNames: [String], extra: [PrometheusSample]) -> String {
        var out = ""
        out += "# HELP journey_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE journey_http_requests_total counter\n"
        let statusLabels = Self.statuses.map(String.init) + ["other"]
        for route in 0..<Self.maxRoutes {
            for (index, status) in statusLabels.enumerated() {
                let count = journey_atomic_load(word(requestsOffset, route * (Self.statuses.count + 1) + index))
                guard count > 0 else { continue }
                out +=
                    "journey_http_requests_total{route=\"\(Self.label(routeName(route, routeNames)))\",status=\"\(status)\"} \(count)\n"
            }
        }
        out += "# HELP journey_http_request_duration_seconds Time to answer a request, by route.\n"
        out += "# TYPE journey_http_request_duration_seconds histogram\n"
        for route in 0..<Self.maxRoutes {
            let base = route * (Self.buckets.count + 3)
            let count = journey_atomic_load(word(histogramOffset, base + Self.buckets.count + 2))
            guard count > 0 else { continue }
            let label = Self.label(routeName(route, routeNames))
            var cumulative: UInt64 = 0
            for (index, bound) in Self.buckets.enumerated() {
                cumulative += journey_atomic_load(word(histogramOffset, base + index))
                out +=
                    "journey_http_request_duration_seconds_bucket{route=\"\(label)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            cumulative += journey_atomic_load(word(histogramOffset, base + Self.buckets.count))
            out += "journey_http_request_duration_seconds_bucket{route=\"\(label)\",le=\"+Inf\"} \(cumulative)\n"
            let sum = Double(journey_atomic_load(word(histogramOffset, base + Self.buckets.count + 1))) / 1e9
            out += "journey_http_request_duration_seconds_sum{route=\"\(label)\"} \(sum)\n"
            out += "journey_http_request_duration_seconds_count{route=\"\(label)\"} \(count)\n"
        }
        let rules = ruleCounters()
        let families:
            [(
                String, String,
                KeyPath<
                    (
                        rule: String, evaluations: UInt64, errors: UInt64, timeouts: UInt64, fallbacks: UInt64,
                        seconds: Double
                    ), UInt64
                >
            )] = [
                ("journey_rule_evaluations_total", "Rule evaluations, by rule.", \.evaluations),
                (
                    "journey_rule_errors_total",
                    "Rule evaluations that failed (runtime error, broken contract, timeout), by rule.", \.errors
                ),
                ("journey_rule_timeouts_total", "Rule evaluations stopped past their budget, by rule.", \.timeouts),
                ("journey_rule_fallbacks_total", "Answers given by a rule's fallback, by rule.", \.fallbacks),
            ]
        for (name, help, path) in families {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for rule in rules { out += "\(name){rule=\"\(Self.label(rule.rule))\"} \(rule[keyPath: path])\n" }
        }
        out += "# HELP journey_rule_evaluation_seconds_total Time spent evaluating, by rule.\n"
        out += "# TYPE journey_rule_evaluation_seconds_total counter\n"
        for rule in rules {
            out += "journey_rule_evaluation_seconds_total{rule=\"\(Self.label(rule.rule))\"} \(rule.seconds)\n"
        }
        var lastFamily = ""
        for sample in extra {
            if sample.name != lastFamily {
                out += "# HELP \(sample.name) \(sample.help)\n# TYPE \(sample.name) \(sample.type)\n"
                lastFamily = sample.name
            }
            let labels = sample.labels.map { "\($0.0)=\"\(Self.label($0.1))\"" }.joined(separator: ",")
            out += sample.name + (labels.isEmpty ? "" : "{\(labels)}") + " \(Self.number(sample.value))\n"
        }
        return out
    }

    private func routeName(_ route: Int, _ names: [String]) -> String {
        route == Self.unmatchedRoute ? "unmatched" : (route < names.count ? names[route] : "route \(route)")
    }

    /// A label value escaped for the text format.
    static func label(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// One sample of a gauge or counter computed when `/metrics` is read.
public struct PrometheusSample: Sendable {
    public var name: String
    public var help: String
    public var type: String
    public var labels: [(String, String)]
    public var value: Double

    public init(_ name: String, help: String, type: String = "gauge", labels: [(String, String)] = [], value: Double) {
        self.name = name
        self.help = help
        self.type = type
        self.labels = labels
        self.value = value
    }
}
