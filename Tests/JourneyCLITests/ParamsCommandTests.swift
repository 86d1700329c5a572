import Core
import Foundation
import JQ
import TestSupport
import Testing

/// `journey params` lists the parameters; `journey params set` edits Rules/params.yaml, one
/// line, checked like `journey check`, and the rules follow the new value.
@Suite struct ParamsCommandTests {
    /// A copy of the bundled rules and plugins.
    static func folder() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory()
        _ = try folder.copy(Repository.rules, to: "Rules")
        _ = try folder.copy(Repository.plugins, to: "Plugins")
        return folder
    }

    @Test func listsEveryParameterWithItsDeclaration() throws {
        let run = journey("params", "--rules", Repository.rules, "--plugins", Repository.plugins)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("PARAMETER") == true)
        let line = try #require(lines.first { $0.hasPrefix("auto_complete.save_weight.window ") })
        for part in ["duration", "30d", "1d to 365d", "Rules/journey/auto_complete.yaml:", "How far back"] {
            #expect(line.contains(part), "\(line)")
        }
        #expect(lines.last?.contains(" parameters, 0 set in \(Repository.rules)/params.yaml (marked *)") == true)

        let json = try JV.parse(
            journey(
                "params", "recommendation", "--rules", Repository.rules, "--plugins", Repository.plugins, "--format",
                "json"
            ).stdout
        ).json()
        #expect(
            json["parameters"]?.arrayValue?.map { $0["param"] ?? .null } == [
                "by_branch_prefers", "by_branch_min_progress", "by_branch_start",
            ])
        let unknown = journey("params", "recomendation.", "--rules", Repository.rules, "--plugins", Repository.plugins)
        #expect(unknown.status == 1 && unknown.stderr.contains("no parameter's name starts with `recomendation.`"))
    }

    @Test func setEditsOneLineAndTheRulesFollow() throws {
        let folder = try Self.folder()
        let rules = folder.path + "/Rules"
        let options = ["--rules", rules, "--plugins", folder.path + "/Plugins"]
        let file = rules + "/params.yaml"
        let bundled = try String(contentsOfFile: file, encoding: .utf8)
        func eval() -> String {
            journey(["eval", "recommendation", "--variant", "by-branch", "--input", Repository.q123] + options).stdout
        }
        #expect(eval() == "\"growth-check\"\n")

        let set = journey(["params", "set", "recommendation.by_branch_prefers", "weakest_topic"] + options)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.hasPrefix("recommendation.by_branch_prefers = weakest_topic (was most_progress); revision "))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text == bundled + "  recommendation:\n    by_branch_prefers: weakest_topic\n")
        #expect(eval() == "\"impulse-control-basics\"\n")
        #expect(journey(["params", "recommendation.by_branch_prefers"] + options).stdout.contains("weakest_topic *"))

        // Refused: a wrong value, an unknown name, a branch that does not exist; the file stays.
        let wrong = journey(["params", "set", "walk-50k.target_km", "5000"] + options)
        #expect(wrong.status == 2 && wrong.stderr.contains("must be between 1 km and 1000 km, found 5000 km"))
        let unknown = journey(["params", "set", "recommendation.by_branch_strat", "mind"] + options)
        #expect(unknown.status == 1 && unknown.stderr.contains("did you mean `recommendation.by_branch_start`?"))
        let branch = journey(["params", "set", "recommendation.by_branch_start", "helth"] + options)
        #expect(branch.status == 2, "\(branch.stderr)")
        #expect(branch.stderr.contains("[unknown_branch]") && branch.stderr.contains("is unchanged"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        #expect(journey(["params", "set", "recommendation.by_branch_start"] + options).status == 64)

        let reset = journey(["params", "set", "recommendation.by_branch_prefers", "--reset"] + options)
        #expect(reset.status == 0 && reset.stdout.contains("most_progress (its default) (was weakest_topic)"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == bundled)
        #expect(eval() == "\"growth-check\"\n")
    }

    /// Values of every type are written as the file reads them back; a rules folder without a
    /// values file gets one.
    @Test func valuesOfEachTypeAreWrittenAsRead() throws {
        let folder = try Self.folder()
        let rules = folder.path + "/Rules"
        let options = ["--rules", rules, "--plugins", folder.path + "/Plugins"]
        try FileManager.default.removeItem(atPath: rules + "/params.yaml")
        let settings = [
            ("puppy-4-8m.evening_reminder", "20:30", "\"20:30\""),
            (
                "walk-50k.ends_at", "2026-12-20T23:59:59+01:00",
                "\"2026-12-20T23:59:59+01:00\""
            ),
            ("walk-50k.target_km", "62.5", "62.5"), ("steps-duel.grace", "1h30m", "1h30m"),
            ("recommendation.by_branch_start", "mind", "mind"),
        ]
        for (name, value, _) in settings {
            let run = journey(["params", "set", name, value] + options)
            #expect(run.status == 0, "\(name): \(run.stderr)")
        }
        let text = try String(contentsOfFile: rules + "/params.yaml", encoding: .utf8)
        for (name, _, written) in settings {
            let key = String(name.split(separator: ".").last!)
            #expect(text.contains("    \(key): \(written)\n"), "\(text)")
        }
        let listed = try JV.parse(journey(["params", "--format", "json"] + options).stdout).json()
        let values = Dictionary(
            (listed["parameters"]?.arrayValue ?? []).map { ($0["name"]?.stringValue ?? "", $0["value"] ?? .null) },
            uniquingKeysWith: { a, _ in a })
        #expect(values["walk-50k.target_km"] == 62.5 && values["steps-duel.grace"] == "1h30m")
        #expect(values["puppy-4-8m.evening_reminder"] == "20:30")
    }
}
