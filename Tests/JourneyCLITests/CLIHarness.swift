import CommandKit
import Features
import Foundation
import JourneyCLI
import TestSupport

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
    let status = JourneyCLI(features: Features.all).run(arguments, io: io)
    return CLIRun(status: status, stdout: out.text, stderr: err.text)
}

extension Repository {
    /// The bundled rules' fixture for Q (q-123): the input `journey eval` tests pass with `--input`.
    static let q123 = rules + "/journey/fixtures/q-123.json"
}
