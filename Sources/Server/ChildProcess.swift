import CSupport
import Core
import FeatureKit
import Foundation
import JQ

#if canImport(Glibc)
    import Glibc
#endif

/// A short-lived child process of a worker (this executable), for work that must not take the
/// worker down: a libjq abort or crash, an allocation that fails, or an evaluation that cannot
/// be stopped ends the child only. The input goes to the child on its descriptor 3 as JSON; the
/// child sends back JSON lines on its descriptor 4, `{"progress": …}` as it goes and
/// `{"answer": …}` last. The child dies with the worker (parent-death signal).
public enum ChildProcess {
    /// When the child is killed: past `cpu` of its own CPU time (checked once its wall time
    /// passed it, so that a busy machine does not count against it), and in any case past `wall`.
    public struct Limits: Sendable {
        public var cpu: Duration?
        public var wall: Duration

        public init(cpu: Duration?, wall: Duration) {
            self.cpu = cpu
            self.wall = wall
        }
    }

    /// Starts `executable` with `arguments` (argv[1…]) and an environment of `PATH` only, sends
    /// `input`, and hands each progress message to `progress` until the child answers or ends.
    public static func run(
        executable: String, arguments: [String], input: JSON, limits: Limits, progress: (JSON) -> Void = { _ in }
    ) -> IsolatedOutcome {
        var requestPipe: [Int32] = [0, 0]
        var responsePipe: [Int32] = [0, 0]
        guard journey_pipe(&requestPipe) == 0 else { return .unavailable("cannot make a pipe") }
        guard journey_pipe(&responsePipe) == 0 else {
            close(requestPipe[0])
            close(requestPipe[1])
            return .unavailable("cannot make a pipe")
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let descriptors = [requestPipe[0], responsePipe[1]]
        let error = journey_spawn(executable, argv, envp, descriptors, 2, &pid)
        close(requestPipe[0])
        close(responsePipe[1])
        guard error == 0 else {
            close(requestPipe[1])
            close(responsePipe[0])
            return .unavailable("cannot start the child process: \(String(cString: strerror(error)))")
        }
        // Written from another thread: a large input would fill the pipe before the child reads.
        let writer = Thread { [request = requestPipe[1]] in
            var bytes: [UInt8] = []
            input.appendCompactText(to: &bytes)
            writeAll(bytes, to: request)
            close(request)
        }
        writer.start()

        let started = ContinuousClock.now
        let lastResort = started + limits.wall
        var deadline = limits.cpu.map { started + $0 } ?? lastResort
        var pending: [UInt8] = []
        var answer: JSON?
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var killed: String?
        reading: while true {
            let remaining = min(deadline, lastResort) - ContinuousClock.now
            if remaining <= .zero {
                if let cpu = limits.cpu, ContinuousClock.now < lastResort, let used = cpuSeconds(of: pid),
                    used < cpu.seconds
                {
                    deadline = ContinuousClock.now + .seconds(1)
                    continue
                }
                kill(pid, SIGKILL)
                killed = "it ran past its time and was killed"
                break
            }
            var descriptor = pollfd(fd: responsePipe[0], events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 1000))
            if poll(&descriptor, 1, milliseconds) <= 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(responsePipe[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending += chunk[0..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let message = try? JSONParser().parse(line) else { continue }
                if let value = message["progress"] { progress(value) }
                if let value = message["answer"] {
                    answer = value
                    break reading
                }
            }
            if pending.count > 64 << 20 {
                kill(pid, SIGKILL)
                killed = "it sent more than 64 MiB and was killed"
                break
            }
        }
        close(responsePipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        while !writer.isFinished { usleep(1_000) }
        if let answer { return .answered(answer) }
        if let killed { return .ended(killed) }
        if journey_wait_signaled(status) {
            return .ended("libjq \(SignalReader.describeCrash(journey_wait_signal(status)))")
        }
        if journey_wait_exited(status), journey_wait_exit_code(status) == Worker.stuckExitCode {
            return .ended("an evaluation could not be stopped past its budget, so its process ended itself")
        }
        return .ended("its process \(Supervisor.describe(status)) without an answer")
    }

    /// The child's side: reads the input from descriptor 3, runs `body` (which may report
    /// progress), writes the answer to descriptor 4; the process exit code. It dies with its
    /// parent, and (given `stuckGrace`) ends itself when an evaluation is still running that long
    /// after it was halted at its budget.
    static func serve(stuckGrace: Duration?, _ body: (JSON, (JSON) -> Void) -> JSON) -> Int32 {
        _ = journey_set_parent_death_signal(SIGKILL)
        if let stuckGrace {
            EvaluationGuard.onStuck(grace: stuckGrace) { _ in _exit(Worker.stuckExitCode) }
        }
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(3, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            request += chunk[0..<count]
        }
        let input = (try? JSONParser().parse(request)) ?? .null
        func send(_ message: JSON) {
            var line: [UInt8] = []
            message.appendCompactText(to: &line)
            line.append(UInt8(ascii: "\n"))
            writeAll(line, to: 4)
        }
        let answer = body(input) { send(["progress": $0]) }
        send(["answer": answer])
        return 0
    }

    /// The CPU time process `pid` has used, in seconds (user and system); nil when it cannot be
    /// read (the process is gone).
    static func cpuSeconds(of pid: pid_t) -> Double? {
        var clock = clockid_t()
        guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// The child side of a feature's isolated job (`journey serve --isolated-job NAME`).
public enum IsolatedJobChild {
    /// Runs `job` on the input from descriptor 3, answering on descriptor 4; the exit code.
    public static func serve(_ job: IsolatedJob, engine: FeatureSet, stuckGrace: Duration) -> Int32 {
        ChildProcess.serve(stuckGrace: stuckGrace) { input, report in job.run(input, engine, report) }
    }
}
