import CSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A pipe from the supervisor to its workers that nobody writes to: the supervisor holds its
/// only write end, so when the supervisor dies, however it dies, every worker's read end sees
/// it closed. A worker asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG), but
/// a supervisor that died before the worker asked is only seen here.
struct Lifeline {
    /// The read end, handed to each worker.
    let workerEnd: Int32
    /// The write end, kept by the supervisor until it ends.
    private let supervisorEnd: Int32

    /// A new pipe (both ends close-on-exec: a worker gets its read end by name).
    init() throws(ServiceError) {
        var ends: [Int32] = [0, 0]
        guard journey_pipe(&ends) == 0 else {
            throw ServiceError("cannot make the workers' lifeline: \(String(cString: strerror(errno)))")
        }
        workerEnd = ends[0]
        supervisorEnd = ends[1]
    }

    /// Whether the supervisor is gone: the write end of the lifeline `descriptor` reads is closed.
    static func isCut(_ descriptor: Int32) -> Bool {
        var end = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&end, 1, 0) != 0
    }

    /// A worker's own end: makes the kernel kill this process when the supervisor (its parent)
    /// dies — at once, even in the middle of a reload, so that its listening socket is released
    /// for the next service — and says whether the supervisor is alive now (it may have died
    /// before the kernel was asked).
    static func bindToSupervisor(_ descriptor: Int32?) -> Bool {
        _ = journey_set_parent_death_signal(SIGKILL)
        guard let descriptor else { return getppid() != 1 }
        // Not inherited by the worker's own children (isolated evaluations).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return !isCut(descriptor)
    }
}
