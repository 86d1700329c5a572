import Foundation

/// What the benchmarks of `journey serve` need: wrk, the `journey` executable beside
/// journey-bench, and a temporary folder with a copy of the rules and plugins (removed by
/// ``remove()``).
struct ServiceBenchmarkSetup {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    let wrk: String
    let journey: String
    let folder: String

    init(name: String, rulesDirectory: String) throws {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile)
        else { throw Problem(description: "wrk is not installed (apt-get install wrk)") }
        let journey = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("journey").path
        guard FileManager.default.isExecutableFile(atPath: journey) else {
            throw Problem(description: "no journey executable beside journey-bench (\(journey)); build it first")
        }
        let folder = NSTemporaryDirectory() + "journey-bench-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: rulesDirectory, toPath: folder + "/Rules")
        try FileManager.default.copyItem(atPath: "Plugins", toPath: folder + "/Plugins")
        self.wrk = wrk
        self.journey = journey
        self.folder = folder
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
