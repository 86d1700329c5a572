import Core
import FeatureKit
import Foundation
import Server
import Testing

/// A child process gets its request on descriptor 3 and answers on 4 whatever numbers the
/// parent's pipes have. In a process with some 200 descriptors open (the whole suite), the
/// spawn copied each pipe through a fixed spare number (200): a response pipe that was itself
/// descriptor 200 was overwritten by the request pipe, and the child's answer was lost
/// ("exited with code 0 without an answer" for a publish's gates).
@Suite(.serialized) struct ChildProcessDescriptorTests {
    /// `free`: the lowest free descriptor when the child is started (its pipes take the next
    /// four: 197 puts the response pipe's write end at 200).
    @Test(arguments: [195, 196, 197, 198, 199])
    func theChildAnswersWhateverTheParentsDescriptors(free: Int32) throws {
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        while true {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0, "cannot open /dev/null")
            guard descriptor < free - 1 else {
                if descriptor > free - 1 { close(descriptor) } else { held.append(descriptor) }
                break
            }
            held.append(descriptor)
        }
        let outcome = ChildProcess.run(
            executable: "/bin/sh", arguments: ["-c", "cat <&3 >&4; echo >&4"], input: ["answer": "echoed"],
            limits: ChildProcess.Limits(cpu: nil, wall: .seconds(60)))
        guard case .answered(let answer) = outcome else {
            Issue.record("no answer with the lowest free descriptor at \(free): \(outcome)")
            return
        }
        #expect(answer == "echoed")
    }
}
