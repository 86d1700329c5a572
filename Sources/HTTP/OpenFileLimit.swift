#if canImport(Glibc)
    import Glibc
#endif

/// The process's limit of open files (`ulimit -n`): every connection is one.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard one; returns the soft limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }
}
