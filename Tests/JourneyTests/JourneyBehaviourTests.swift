import CheckPlugins
import Core
import Engine
import FeatureKit
import Features
import Foundation
import JQ
import RuleEngine
import SQLiteStore
import Store
import TestSupport
import Testing

@testable import Journey

@Suite struct JourneyBehaviourTests {
    static let registration: JSONObject = [
        "name": "Miso", "age_range": "4-8m", "breed": "shiba_inu", "timezone": "Europe/Berlin",
        "metrics": ["bond": 62, "impulse_control": 30, "recall": 30, "exercise": 54],
    ]

    @Test func registeringAgainKeepsTheManifest() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        let first = journey.send("dog_registered", Self.registration)
        #expect(first.effects.map { $0["type"] ?? .null } == ["dog_registered", "manifest_created", "analytics_event"])
        let manifest = try #require(try journey.store.manifest(dog: "miso"))
        var changed = Self.registration
        changed["metrics"] = ["bond": 5]
        let again = journey.send("dog_registered", changed)
        #expect(again.status == .accepted)
        #expect(again.effects.isEmpty)
        #expect(try journey.count("SELECT count(*) FROM manifests") == 1)
        #expect(try journey.store.manifest(dog: "miso") == manifest)
    }

    @Test func aLaterCatalogChangeDoesNotTouchExistingDogs() throws {
        let folder = try TemporaryDirectory(copying: Repository.rules)
        let first = try JourneyHarness(rules: folder.path, now: "2026-11-20T08:00:00Z")
        first.send("dog_registered", dog: "old", Self.registration)

        // The structure changes (the catalog is copied at registration) and a text changes (texts
        // are the locale files', shown as they are when read).
        let catalogPath = folder.file("journey/catalog.yaml")
        var catalog = try String(contentsOfFile: catalogPath, encoding: .utf8)
        let breed = try #require(catalog.range(of: "- id: breed-traits\n        topic: exercise\n        needs: []\n"))
        catalog.replaceSubrange(
            breed, with: "- id: breed-traits\n        topic: exercise\n        needs: []\n        minutes: 5\n")
        catalog = catalog.replacingOccurrences(of: "minutes: 5\n        minutes: 3\n", with: "minutes: 5\n")
        try catalog.write(toFile: catalogPath, atomically: true, encoding: .utf8)
        let textsPath = folder.file("locales/journey/en.yaml")
        let texts = try String(contentsOfFile: textsPath, encoding: .utf8)
        try texts.replacingOccurrences(of: "\"Know your breed\"", with: "\"Your breed, explained\"")
            .write(toFile: textsPath, atomically: true, encoding: .utf8)
        let second = try JourneyHarness(rules: folder.path, now: "2026-11-21T08:00:00Z")
        // The second harness writes to its own file: copy the first store there.
        try second.store.connection.execute("ATTACH DATABASE '\(first.path)' AS first")
        for table in ["users", "dogs", "manifests", "catalog_snapshots", "events"] {
            try second.store.connection.execute("INSERT INTO main.\(table) SELECT * FROM first.\(table)")
        }
        try second.store.connection.execute("DETACH DATABASE first")
        second.send("dog_registered", dog: "new", user: "owner-2", Self.registration)

        let english = RequestTexts.choose(profile: nil, acceptLanguage: "en", catalog: second.evaluator.ruleSet.texts)
        let views = JourneyViews(store: second.store, evaluator: second.evaluator, now: second.clock, texts: english)
        #expect(try views.preview("old", block: "breed-traits")["minutes"] == 3)
        #expect(try views.preview("new", block: "breed-traits")["minutes"] == 5)
        #expect(try second.count("SELECT count(*) FROM catalog_snapshots") == 2)
        for dog in ["old", "new"] {
            #expect(try views.path(dog, branch: "lifestyle")["nodes"]?[0]?["title"] == "Your breed, explained")
            #expect(try second.views.path(dog, branch: "lifestyle")["nodes"]?[0]?["title"] == "Узнайте свою породу")
        }
    }

    static let refusals: [(String, String, JSONObject, String)] = [
        ("unknown option", "breed-traits", ["option": "wolf"], "unknown option \"wolf\" for this check; options: "),
        ("missing option", "breed-traits", [:], "a self_screen answer needs `option`: one of "),
        ("unknown outcome", "weight-baseline", ["outcome": "maybe"], "outcomes: "),
        ("answer not an object", "weight-baseline", [:], "a hands_on answer needs `outcome`"),
    ]

    @Test(arguments: refusals)
    func pluginRefusalsNameTheFieldAndRecordNothing(
        _ name: String, _ block: String, _ answer: JSONObject, _ message: String
    ) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        journey.send("block_started", ["block_id": .string(block)])
        let result = journey.send("check_answered", ["block_id": .string(block), "answer": .object(answer)])
        #expect(result.status == .rejected, "\(name)")
        #expect(result.code == "invalid")
        #expect(result.message?.contains(message) == true, "\(result.message ?? "")")
        #expect(try journey.count("SELECT count(*) FROM profile_records") == 0)
        #expect(try journey.views.state("miso").steps[block]?.contains("check") != true)
    }

    @Test func predictOutOfRangeIsRefused() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        let map = try journey.views.state("miso").map
        let option = try #require(map.block("breed-traits")?.content["check"]?["options"]?[0]?["id"])
        journey.send("block_started", ["block_id": "breed-traits"])
        journey.send("theory_viewed", ["block_id": "breed-traits"])
        journey.send("check_answered", ["block_id": "breed-traits", "answer": ["option": option]])
        journey.send("observation_recorded", ["field": "energy", "value": "high"])
        #expect(try journey.views.state("miso").isCompleted("breed-traits"))
        let result = journey.send(
            "check_answered", ["block_id": "daily-exercise-needs", "answer": ["guess": -5, "measured": 30]])
        #expect(result.status == .rejected)
        #expect(result.message?.contains("`guess` -5 is out of range") == true, "\(result.message ?? "")")
    }

    @Test func autoCompleteOfferCountsTheRecords() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        journey.send("weight_saved", ["kg": 7.2])
        journey.send("weight_saved", ["kg": 7.4])
        let preview = try journey.views.preview("miso", block: "weight-baseline")
        // Seed 000: «Нашли 2 записи — засчитать автоматически», in the reader's locale.
        #expect(preview["offer"] == "Нашли 2 записи веса — засчитать автоматически")
        #expect(
            try journey.views(locale: "en").preview("miso", block: "weight-baseline")["offer"]
                == "Found 2 weight records — count them")
        journey.send("block_started", ["block_id": "weight-baseline"])
        let accepted = journey.send("auto_complete_accepted", ["block_id": "weight-baseline"])
        #expect(accepted.status == .accepted)
        #expect(accepted.effects.contains { $0["type"] == "block_step_completed" && $0["step"] == "action" })
        let noOffer = journey.send("auto_complete_accepted", ["block_id": "bond-building-games"])
        #expect(noOffer.code == "invalid" && noOffer.message?.contains("has no auto-complete") == true)
    }

    @Test func blockEventsNeedAKnownBlockAndAJourney() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", Self.registration)
        let unknown = journey.send("block_started", ["block_id": "moon-landing"])
        #expect(unknown.message == "Miso's journey has no block `moon-landing`")
        let missing = journey.send("block_started", [:])
        #expect(missing.message == "block_started needs `payload.block_id`")
        var adult = Self.registration
        adult["age_range"] = "3-7y"
        let registered = journey.send("dog_registered", dog: "rex", adult)
        #expect(registered.effects.map { $0["type"] ?? .null } == ["dog_registered"], "no catalog for adults yet")
        let noJourney = journey.send("block_started", dog: "rex", ["block_id": "weight-baseline"])
        #expect(noJourney.message?.hasPrefix("dog rex has no journey (no catalog covered its age)") == true)
        #expect(throws: JourneyViewError.self) { try journey.views.today("rex") }
    }

    /// A puppy registered at two months has no journey; opened once it is four and a half
    /// months old, its journey is built then (once), and its blocks can be started.
    @Test func aPuppyGrowsIntoItsJourney() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        var puppy = Self.registration
        puppy["age_range"] = nil
        puppy["birth_date"] = "2026-09-20"
        let registered = journey.send("dog_registered", dog: "baby", puppy)
        #expect(registered.effects.map { $0["type"] ?? .null } == ["dog_registered"], "too young for every catalog")
        journey.send("journey_opened", dog: "baby")
        #expect(try journey.count("SELECT count(*) FROM manifests WHERE dog_id = 'baby'") == 0)
        journey.clock = Timestamp.parse("2027-02-05T08:00:00Z")!
        let opened = journey.send("journey_opened", dog: "baby")
        #expect(opened.effects.contains { $0["type"] == "manifest_created" }, "\(opened.json)")
        #expect(try journey.count("SELECT count(*) FROM manifests WHERE dog_id = 'baby'") == 1)
        let again = journey.send("journey_opened", dog: "baby")
        #expect(!again.effects.contains { $0["type"] == "manifest_created" }, "built once")
        let started = journey.send("block_started", dog: "baby", ["block_id": "weight-baseline"])
        #expect(started.status == .accepted, "\(started.json)")
        #expect(try journey.views.today("baby")["recommended"] != nil)
    }

    @Test func birthDateDecidesTheCatalog() throws {
        let dog = DogProfile(id: "d", userID: "u", name: "D", birthDate: "2026-06-01", registeredAt: 0)
        let now = Timestamp.parse("2026-11-20T08:00:00Z")!
        #expect(ManifestBuilder.ageRange(of: dog, at: now) == AgeRange(months: 5))
        #expect(AgeRange("4-8m")!.overlaps(AgeRange(months: 5)))
        #expect(!AgeRange("4-8m")!.overlaps(AgeRange(months: 8)))
        #expect(AgeRange("7y+")!.overlaps(AgeRange(months: 200)))
        #expect(AgeRange("soon") == nil)
    }

    static let evenings: [(String, String, String, String)] = [
        // Berlin in winter (UTC+1), in summer (UTC+2), on the day clocks go back, and too late.
        ("winter", "2026-11-20T10:00:00Z", "Europe/Berlin", "2026-11-20T18:00:00Z"),
        ("summer", "2026-07-01T10:00:00Z", "Europe/Berlin", "2026-07-01T17:00:00Z"),
        ("clocks go back", "2026-10-25T10:00:00Z", "Europe/Berlin", "2026-10-25T18:00:00Z"),
        ("Tokyo", "2026-11-20T01:00:00Z", "Asia/Tokyo", "2026-11-20T10:00:00Z"),
        ("already evening", "2026-11-20T18:45:00Z", "Europe/Berlin", "2026-11-20T20:45:00Z"),
    ]

    @Test(arguments: evenings)
    func thisEveningIsInTheDogsTimeZone(_ name: String, _ now: String, _ zone: String, _ expected: String) {
        let due = LocalTime.next("19:00", after: Timestamp.parse(now)!, timezone: zone)
        #expect(due.map(Timestamp.format) == expected, "\(name)")
    }

    /// A check type written in Swift: a one-question quiz.
    struct QuizPlugin: CheckPlugin {
        let type = "quiz"
        let summary = "A one-question quiz."
        func problems(in content: JSON, evaluator: RuleEvaluator) -> [String] {
            content["answer"]?.stringValue == nil ? ["a quiz needs its `answer`"] : []
        }
        func outcome(of answer: JSON, content: JSON, context: CheckContext, evaluator: RuleEvaluator) throws
            -> CheckOutcome
        {
            guard let given = answer["text"]?.stringValue else {
                throw Rejection(.invalid, "a quiz answer needs `text`")
            }
            let right = given == content["answer"]?.stringValue
            return CheckOutcome(
                records: [(kind: "quiz", payload: ["right": .bool(right)])], completesCheck: true,
                interpretation: right ? "Right!" : "Not quite.", analytics: ["right": .bool(right)])
        }
    }

    @Test func aCheckTypeWrittenInSwift() throws {
        let folder = try TemporaryDirectory(copying: Repository.rules)
        let catalogPath = folder.file("journey/catalog.yaml")
        var catalog = try String(contentsOfFile: catalogPath, encoding: .utf8)
        let block = try #require(catalog.range(of: "- id: bond-building-games"))
        let start = try #require(catalog.range(of: "        check:\n", range: block.upperBound..<catalog.endIndex))
        let end = try #require(catalog.range(of: "        action:", range: start.upperBound..<catalog.endIndex))
        catalog.replaceSubrange(
            start.lowerBound..<end.lowerBound, with: "        check:\n          type: quiz\n          answer: yes\n")
        try catalog.write(toFile: catalogPath, atomically: true, encoding: .utf8)
        // The texts of the check it replaces name nothing now: they go too.
        for locale in ["ru", "en"] {
            let path = folder.file("locales/journey/\(locale).yaml")
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            try lines.filter { !$0.contains("journey.block.bond-building-games.check.") }.joined(separator: "\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }

        let plugins: [any CheckPlugin] = [QuizPlugin()]
        let features = Features.standard(swiftPlugins: plugins)
        let loaded = features.loader(rulesDirectory: folder.path, pluginsDirectory: Repository.plugins).load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        let without = Features.all.loader(rulesDirectory: folder.path, pluginsDirectory: Repository.plugins).load()
        #expect(without.diagnostics.contains { $0.code == "unknown_check_type" && $0.message.contains("`quiz`") })

        let database = TemporaryDatabaseFile()
        let store = try SQLiteStore(path: database.path, schema: Features.all.schema)
        let now = Timestamp.parse("2026-11-20T08:00:00Z")!
        let ingestor = features.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(clock: { now + 3600 }), cores: 1)
        let registered = ingestor.ingest([
            [
                "event_id": "r", "user_id": "u", "type": "dog_registered", "occurred_at": "2026-11-20T08:00:00Z",
                "dog_id": "x", "payload": .object(Self.registration),
            ]
        ])
        #expect(registered[0].status == .accepted)
        let dog = try #require(try store.dog("x"))
        let state = try #require(try JourneyLoader.state(of: dog, store: store, evaluator: evaluator, now: now))
        let quizBlock = try #require(state.map.blocks.first { $0.checkType == "quiz" })
        #expect(quizBlock.id == "bond-building-games")
        let answered = ingestor.ingest([
            [
                "event_id": "s", "user_id": "u", "type": "block_started", "occurred_at": "2026-11-20T08:10:00Z",
                "dog_id": "x", "payload": ["block_id": .string(quizBlock.id)],
            ],
            [
                "event_id": "a", "user_id": "u", "type": "check_answered", "occurred_at": "2026-11-20T08:11:00Z",
                "dog_id": "x", "payload": ["block_id": .string(quizBlock.id), "answer": ["text": "yes"]],
            ],
        ])
        #expect(answered.map(\.status) == [.accepted, .accepted], "\(answered.map(\.json.compactText))")
        #expect(answered[1].effects.contains { $0["type"] == "check_answered" && $0["interpretation"] == "Right!" })
        #expect(try store.records(dog: "x", kind: "quiz").count == 1)
    }
}
