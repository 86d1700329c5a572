import Foundation

/// Where a command writes text.
public protocol TextOutput: AnyObject {
    func write(_ text: String)
    /// Writes out anything buffered.
    func flush()
    /// Whether some text could not be written (a closed pipe, a full disk).
    var writeFailed: Bool { get }
    /// Whether this is a terminal (progress bars, colours).
    var isTerminal: Bool { get }
}

extension TextOutput {
    public var writeFailed: Bool { false }
}

/// The streams a command runs with: injected, so tests capture them.
public struct CommandIO {
    public var stdout: TextOutput
    public var stderr: TextOutput
    /// Reads all of standard input.
    public var readStdin: () throws -> [UInt8]
    /// The process environment (for `JOURNEY_*` settings).
    public var environment: [String: String]

    public init(
        stdout: TextOutput, stderr: TextOutput, readStdin: @escaping () throws -> [UInt8],
        environment: [String: String] = [:]
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.readStdin = readStdin
        self.environment = environment
    }

    /// The process's own streams.
    public static func standard() -> CommandIO {
        CommandIO(
            stdout: FileOutput(descriptor: 1), stderr: FileOutput(descriptor: 2),
            readStdin: { Array(FileHandle.standardInput.readDataToEndOfFile()) },
            environment: ProcessInfo.processInfo.environment)
    }
}

/// A file descriptor (1 or 2), buffered here; a terminal gets every write at once.
public final class FileOutput: TextOutput {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    public let isTerminal: Bool
    public private(set) var writeFailed = false

    public init(descriptor: Int32) {
        self.descriptor = descriptor
        self.isTerminal = isatty(descriptor) == 1
    }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if isTerminal || buffer.count >= 64 * 1024 { flush() }
    }

    public func flush() {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                writeFailed = true
                break  // a closed pipe, a full disk: nothing more can be written
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Text kept in memory: for tests.
public final class CapturedOutput: TextOutput {
    public private(set) var text = ""
    public let isTerminal = false

    public init() {}

    public func write(_ text: String) {
        self.text += text
    }

    public func flush() {}
}

extension TextOutput {
    /// Writes `text` and a newline.
    public func line(_ text: String = "") {
        write(text + "\n")
    }
}
