import Core
import Foundation
import JQ
import TestSupport
import Testing

/// `journey experiments`, `journey assign`, `journey eval --user`, `journey onboarding show`
/// and `journey funnel onboarding` on the bundled rules.
@Suite struct ExperimentCommandTests {
    static let common = ["--rules", Repository.rules, "--plugins", Repository.plugins]

    @Test func experimentsListsRanges() throws {
        let text = journey(["experiments"] + Self.common)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("recommendation-v2"))
        #expect(text.stdout.contains("[0.5, 1.0)"))
        let json = try JV.parse(journey(["experiments", "--format", "json"] + Self.common).stdout).json()
        let recommendation = try #require(json["experiments"]?.arrayValue?.first { $0["key"] == "recommendation-v2" })
        #expect(recommendation["variations"]?[1]?["range"] == [0.5, 1])
        #expect(recommendation["rules"] == ["recommendation"])
        #expect(recommendation["hash_version"] == 2)
    }

    /// The exact GrowthBook hash: (fnv32a(String(fnv32a("recommendation-v2" + "u-1"))) % 10000) / 10000.
    @Test func assignShowsTheHashTheRangeAndWhy() throws {
        let json = try JV.parse(
            journey(
                ["assign", "recommendation-v2", "--user", "u-1", "--db", "/nonexistent.sqlite", "--format", "json"]
                    + Self.common
            )
            .stdout
        ).json()
        #expect(json["variation"] == "control")
        #expect(json["hash_value"] == 0.0601)
        #expect(json["range"] == [0, 0.5])
        #expect(json["reason"] == "assigned")
        let text = journey(
            ["assign", "onboarding-first-launch", "--user", "onb-1", "--db", "/nonexistent.sqlite"] + Self.common)
        #expect(text.stdout.contains("variation:   single_page"))
        #expect(text.stdout.contains("hash value:  0.8674"))
        #expect(text.stdout.contains("range:       [0.5, 1.0)"))
    }

    @Test func assignRefusals() {
        let unknown = journey(["assign", "recommendation-v3", "--user", "u"] + Self.common)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no experiment `recommendation-v3`; did you mean `recommendation-v2`?"))
        #expect(journey(["assign", "recommendation-v2"] + Self.common).status == 64)
        #expect(journey(["assign"] + Self.common).status == 64)
        #expect(
            journey(["assign", "recommendation-v2", "--user", "u", "--now", "yesterday"] + Self.common).status == 64)
    }

    /// `journey eval RULE --user ID` evaluates the variant the user is assigned: owner-1 is in
    /// `by-branch`, u-1 in `control`; each prints what `--variant` of that name prints.
    @Test func evalPicksTheVariantByAssignment() {
        func eval(_ extra: [String]) -> String {
            let run = journey(
                [
                    "eval", "recommendation", "--input", Repository.q123, "--now", "2026-11-29T12:00:00Z", "--db",
                    "/nonexistent.sqlite",
                ]
                    + extra + Self.common)
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout
        }
        let byBranch = eval(["--variant", "by-branch"])
        let control = eval(["--variant", "control"])
        #expect(byBranch != control, "the fixture tells the variants apart")
        #expect(eval(["--user", "owner-1"]) == byBranch)
        #expect(eval(["--user", "u-1"]) == control)
        let trace = journey(
            [
                "eval", "recommendation", "--input", Repository.q123, "--user", "owner-1", "--trace", "--db",
                "/nonexistent.sqlite",
            ]
                + Self.common)
        #expect(trace.stderr.contains("assignment: by-branch (assigned, hash 0.6393)"))
        #expect(journey(["eval", "recommendation", "--user", "u", "--variant", "control"] + Self.common).status == 64)
        #expect(journey(["eval", "--expr", ".", "--user", "u"] + Self.common).status == 64)
    }

    @Test func onboardingShowAndFunnel() throws {
        let database = TemporaryDatabaseFile()
        let ingest = journey(
            [
                "ingest", Repository.examples + "/onboarding.jsonl", "--db", database.path, "--now",
                "2026-11-29T12:00:00Z", "-q",
            ]
                + Self.common)
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        let show = journey(["onboarding", "show", "--user", "onb-3", "--db", database.path] + Self.common)
        #expect(show.stdout.contains("now: first_tracker (guided), step 3/7 `type_name`"), "\(show.stdout)")
        #expect(show.stdout.contains("can skip: no"))
        let view = try JV.parse(
            journey(["onboarding", "show", "--user", "onb-2", "--db", database.path, "--format", "json"] + Self.common)
                .stdout
        ).json()
        #expect(view["current"] == .null)
        #expect(view["flows"]?[0]?["skipped_step_ids"] == ["streaks_page"])
        #expect(view["flows"]?.arrayValue?.map { $0["status"] ?? .null } == ["finished", "finished"])
        let funnel = try JV.parse(
            journey(
                [
                    "funnel", "onboarding", "--flow", "first_tracker", "--by-variant", "--db", database.path,
                    "--format",
                    "json",
                ]
                    + Self.common
            )
            .stdout
        ).json()
        let guided = try #require(funnel["funnels"]?[0]?["variants"]?[0])
        #expect(guided["variant"] == "guided")
        #expect(guided["started"] == 2)
        #expect(guided["finished"] == 1)
        #expect(guided["biggest_drop_off"] == "type_name")
        #expect(
            guided["steps"]?[2] == [
                "step_id": "type_name", "reached": 2, "completed": 1, "skipped": 0, "stuck": 1,
                "median_duration_seconds": 7,
            ])
        let text = journey(["funnel", "onboarding", "--by-variant", "--db", database.path] + Self.common)
        #expect(text.stdout.contains("first_tracker (first_tracker@1), variant guided: 2 started, 1 finished"))
        #expect(text.stdout.contains("← biggest drop-off"))
        let unknown = journey(["funnel", "onboarding", "--flow", "nope", "--db", database.path] + Self.common)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no onboarding flow `nope`; flows: first_launch, first_tracker"))
    }
}

/// `journey funnel onboarding` in total over the variants (the default) against `--by-variant`,
/// on the sample onboarding events: first_tracker's `guided` has seven steps, `compact` three,
/// two of them the same.
@Suite struct FunnelTotalCommandTests {
    @Test func theTotalIsTheSumOfTheVariantsStepByStep() throws {
        let database = TemporaryDatabaseFile()
        let ingest = journey(
            [
                "ingest", Repository.examples + "/onboarding.jsonl", "--db", database.path, "--now",
                "2026-11-29T12:00:00Z", "-q",
            ] + ExperimentCommandTests.common)
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        func funnel(_ extra: [String]) throws -> JSON {
            let run = journey(
                ["funnel", "onboarding", "--flow", "first_tracker", "--db", database.path, "--format", "json"] + extra
                    + ExperimentCommandTests.common)
            #expect(run.status == 0, "\(run.stderr)")
            return try #require(try JV.parse(run.stdout).json()["funnels"]?[0])
        }
        let total = try #require(try funnel([])["all_variants"])
        let variants = try #require(try funnel(["--by-variant"])["variants"]?.arrayValue)
        #expect(try funnel([])["variants"] == nil, "the total unless --by-variant")
        #expect(total["variant_names"] == ["guided", "compact"])
        #expect(total["started"] == 3 && total["finished"] == 2)
        // Steps matched by id; compact's fill_form stands before the step they share next.
        let ids = total["steps"]?.arrayValue?.compactMap { $0["step_id"]?.stringValue }
        #expect(
            ids == [
                "tap_add", "choose_habit", "type_name", "choose_category", "set_schedule", "pick_style", "fill_form",
                "tap_create",
            ])
        /// Each variant's steps by id.
        let byVariant: [(name: JSON, steps: [String: JSON])] = variants.map { variant in
            var steps: [String: JSON] = [:]
            for step in variant["steps"]?.arrayValue ?? [] {
                if let id = step["step_id"]?.stringValue { steps[id] = step }
            }
            return (variant["variant"] ?? .null, steps)
        }
        for step in total["steps"]?.arrayValue ?? [] {
            let id = try #require(step["step_id"]?.stringValue)
            let having = byVariant.filter { $0.steps[id] != nil }
            let names: [JSON] = having.map(\.name)
            #expect(step["variant_names"] == .array(names), "\(id)")
            for count in ["reached", "completed", "skipped", "stuck"] {
                var sum = 0.0
                for variant in having { sum += variant.steps[id]?[count]?.numberValue ?? 0 }
                #expect(step[count]?.numberValue == sum, "\(id) \(count)")
            }
        }
        // tap_create: 5 s (guided) and 6 s (compact), one user each: the median of both.
        #expect(total["steps"]?[7]?["median_duration_seconds"] == 5.5)
        #expect(total["biggest_drop_off"] == "type_name")
        let run = journey(
            ["funnel", "onboarding", "--flow", "first_tracker", "--db", database.path] + ExperimentCommandTests.common)
        // Each line without the padding of the empty last column.
        let text = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
        #expect(
            text.hasPrefix(
                """
                first_tracker (first_tracker@1), all variants (guided, compact): 3 started, 2 finished
                STEP             VARIANTS  REACHED  COMPLETED  SKIPPED  STUCK  MEDIAN
                tap_add          all       3        3          0        0      8.0s
                choose_habit     guided    2        2          0        0      3.0s
                """), "\(text)")
        #expect(text.contains("\nfill_form        compact   1        1          0        0      19.0s\n"))
    }
}

/// `journey experiments report` on the bundled rules and the sample onboarding events: three
/// users in `onboarding-first-tracker`, two guided (one finished), one compact (finished).
@Suite struct ExperimentReportCommandTests {
    static let common = ExperimentCommandTests.common + ["--now", "2026-11-29T12:00:00Z"]

    static func store() -> TemporaryDatabaseFile {
        let database = TemporaryDatabaseFile()
        let ingest = journey(
            ["ingest", Repository.examples + "/onboarding.jsonl", "--db", database.path, "-q"] + Self.common)
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        return database
    }

    @Test func textPerMetricWithTheSampleRatioAndExposureLines() {
        let database = Self.store()
        let run = journey(["experiments", "report", "onboarding-first-tracker", "--db", database.path] + Self.common)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.hasPrefix(
                """
                experiment onboarding-first-tracker as of 2026-11-29T12:00:00Z: 3 users exposed
                users analysed: guided 2, compact 1 (weights 0.5, 0.5)
                sample ratio: not enough traffic to check (under 8 users in guided, compact); p = 0.5637
                multiple exposures: 0 users (0.0%) saw more than one variation; excluded from the analysis

                metric finished: onboarding_flow_completed where .payload.flow == "first_tracker" within 1d
                VARIATION  USERS  CONVERSIONS  RATE    Δ ABS [95% CI]  Δ REL [95% CI]  P-VALUE
                guided     2      1            50.0%   -               -               -
                compact    1      1            100.0%  -               -               -
                  compact: no estimate: a variation where every user converted or none did (or with one user) has no variance

                metric checked_a_habit: habit_checked within 7d
                """), "\(run.stdout)")
        #expect(run.stdout.contains("\nguardrail deleted_a_tracker: tracker_deleted within 7d\n"))
    }

    @Test func jsonHasEveryNumber() throws {
        let database = Self.store()
        let run = journey(
            ["experiments", "report", "onboarding-first-tracker", "--db", database.path, "--format", "json"]
                + Self.common)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JV.parse(run.stdout).json()
        #expect(json["experiment"] == "onboarding-first-tracker")
        #expect(json["exposed_users"] == 3)
        #expect(
            json["variations"] == [
                ["variation": "guided", "weight": 0.5, "users": 2],
                ["variation": "compact", "weight": 0.5, "users": 1],
            ])
        #expect(json["sample_ratio"]?["status"] == "not_enough_traffic")
        #expect(json["multiple_exposures"] == ["users": 0, "share": 0, "excluded": true])
        let metrics = try #require(json["metric_results"]?.arrayValue)
        #expect(
            metrics.map { $0["key"] ?? .null } == ["finished", "checked_a_habit", "deleted_a_tracker"])
        #expect(metrics.map { $0["guardrail"] ?? .null } == [false, false, true])
        #expect(metrics[0]["where"] == ".payload.flow == \"first_tracker\"")
        #expect(metrics[0]["within_seconds"] == 86_400)
        #expect(
            metrics[0]["variations"]?[1] == [
                "variation": "compact", "users": 1, "conversions": 1, "rate": 1, "absolute": nil, "relative": nil,
                "unavailable": [
                    "code": "zero_negative_variance",
                    "message": "a variation where every user converted or none did (or with one user) has no variance",
                ],
            ])
    }

    @Test func refusals() {
        let database = Self.store()
        let unknown = journey(
            ["experiments", "report", "onboarding-first-trakcer", "--db", database.path] + Self.common)
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr.contains(
                "no experiment `onboarding-first-trakcer`; did you mean `onboarding-first-tracker`?"))
        let noStore = journey(
            ["experiments", "report", "recommendation-v2", "--db", "/nonexistent.sqlite"] + Self.common)
        #expect(noStore.status == 1 && noStore.stderr.contains("no store at /nonexistent.sqlite"))
        #expect(journey(["experiments", "report"] + Self.common).status == 64)
        #expect(journey(["experiments", "report", "a", "b"] + Self.common).status == 64)
    }
}

/// `journey challenges`, `journey challenge show` and `journey challenge digest` on the bundled rules.
@Suite struct ChallengeCommandTests {
    static let common = ["--rules", Repository.rules, "--plugins", Repository.plugins, "--now", "2026-11-29T12:00:00Z"]

    @Test func listShowAndDigest() throws {
        let database = TemporaryDatabaseFile()
        let ingest = journey(
            ["ingest", Repository.examples + "/challenges.jsonl", "--db", database.path, "-q"] + Self.common)
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        let list = journey(["challenges", "--db", database.path] + Self.common)
        #expect(list.stdout.contains("community-walks"))
        #expect(list.stdout.contains("weekly-training@2026-11-23"))
        let show = try JV.parse(
            journey(
                [
                    "challenge", "show", "community-walks", "--user", "owner-2", "--db", database.path, "--format",
                    "json",
                ]
                    + Self.common
            )
            .stdout
        ).json()
        #expect(show["aggregate"]?["participants"] == 2)
        #expect(show["aggregate"]?["value"] == 10.7)
        #expect(show["current_value"] == 4.5)
        #expect(show["completed_at"] == .null)
        #expect(show["rank"] == 2, "owner-2 walked less than owner-1")
        let duel = try JV.parse(
            journey(
                ["challenge", "show", "steps-duel", "--user", "owner-1", "--db", database.path, "--format", "json"]
                    + Self.common
            )
            .stdout
        ).json()
        #expect(duel["rank"] == 1)
        #expect(duel["ranking"]?[0]?["team_id"] == "owner-1")
        let unknown = journey(["challenge", "show", "walk-5k", "--db", database.path] + Self.common)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no challenge `walk-5k`; did you mean `walk-50k`?"))
        let digest = journey(["challenge", "digest", "--db", database.path] + Self.common)
        #expect(digest.stdout.contains("2 notifications"), "\(digest.stdout)")
        #expect(
            journey(["challenge", "digest", "--db", database.path] + Self.common).stdout.contains("0 notifications"))
    }
}
