import Foundation

/// Lets the request thread ask the worker's control thread for a reload and wait for its
/// report (the admin endpoint): the control thread does every load of a running worker, with
/// its program cache.
///
/// `@unchecked Sendable`: every field is guarded by `condition`.
final class ReloadCoordinator: @unchecked Sendable {
    private let condition = NSCondition()
    private var active = false
    private var completed: UInt64 = 0
    private var report: ReloadReport?

    /// Whether a control thread runs reloads (not in tests that drive the service directly).
    var isActive: Bool {
        get {
            condition.lock()
            defer { condition.unlock() }
            return active
        }
        set {
            condition.lock()
            active = newValue
            condition.unlock()
        }
    }

    /// The control thread finished the reload asked for by `generation`.
    func finished(generation: UInt64, report: ReloadReport) {
        condition.lock()
        completed = max(completed, generation)
        self.report = report
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the reload of `generation` (or a later one) is done; nil after `timeout`.
    func wait(for generation: UInt64, timeout: Double) -> ReloadReport? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while completed < generation {
            if !condition.wait(until: deadline) { return nil }
        }
        return report
    }
}
