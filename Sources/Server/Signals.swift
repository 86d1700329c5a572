import CSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Signals handled synchronously: blocked in every thread (call ``block(_:)`` before any
/// thread starts) and read from a signalfd in the control loop.
struct SignalReader {
    let descriptor: Int32

    /// Blocks `signals` for this thread and the threads it starts later.
    static func block(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    init(_ signals: [Int32]) throws(ServiceError) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw ServiceError("signalfd: \(String(cString: strerror(errno)))") }
        descriptor = fd
    }

    /// The signals received since the last call.
    func drain() -> [Int32] {
        var signals: [Int32] = []
        var info = signalfd_siginfo()
        while read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            signals.append(Int32(info.ssi_signo))
        }
        return signals
    }

    /// Waits until one of `descriptors` is readable or `milliseconds` pass.
    static func wait(_ descriptors: [Int32], milliseconds: Int32) {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
    }

    /// "aborted (SIGABRT)", "crashed (SIGSEGV)".
    static func describeCrash(_ signal: Int32) -> String {
        signal == SIGABRT ? "aborted (SIGABRT)" : "crashed (\(name(signal)))"
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGABRT: "SIGABRT"
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        default: "signal \(signal)"
        }
    }
}

/// Writes a line to standard error at once (service logs: one write per line).
public func logLine(_ text: String) {
    let line = Array((text + "\n").utf8)
    line.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
