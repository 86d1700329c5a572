import CommandKit
import Foundation
import JourneyCLI

/// Runs `journey` in-process with captured streams.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

func journey(_ arguments: String..., stdin: [UInt8] = []) -> CLIRun {
    journey(arguments, stdin: stdin)
}

func journey(_ arguments: [String], stdin: [UInt8] = []) -> CLIRun {
    let out = CapturedOutput()
    let err = CapturedOutput()
    let io = CommandIO(stdout: out, stderr: err, readStdin: { stdin })
    let status = JourneyCLI.run(arguments, io: io)
    return CLIRun(status: status, stdout: out.text, stderr: err.text)
}

enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let rules = root + "/Rules"
    static let plugins = root + "/Plugins"
    static let q123 = rules + "/journey/fixtures/q-123.json"
}

/// A rules directory in the temporary folder, removed when released.
final class RulesDirectory {
    let path: String

    init(_ files: [String: String]) throws {
        path = NSTemporaryDirectory() + "journey-cli-tests-" + UUID().uuidString
        for (relative, text) in files {
            let full = path + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
