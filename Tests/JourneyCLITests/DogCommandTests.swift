import Foundation
import JQ
import TestSupport
import Testing

/// `journey dog …` over a store filled by `journey ingest`.
@Suite struct DogCommandTests {
    final class Store {
        private let file = TemporaryDatabaseFile()
        var path: String { file.path }
        init() {
            let run = journey(
                "ingest", Repository.examples + "/events.jsonl", "--db", path, "--rules", Repository.rules,
                "--plugins",
                Repository.plugins, "--now", "2026-11-29T12:00:00Z", "-q")
            precondition(run.status == 0, run.stdout + run.stderr)
        }
        func dog(_ arguments: String...) -> CLIRun {
            journey(
                ["dog"] + arguments + [
                    "--db", path, "--rules", Repository.rules, "--plugins", Repository.plugins, "--now",
                    "2026-11-29T12:00:00Z",
                ])
        }
    }

    /// `journey explain today` reproduces `journey dog today` exactly, and says which variant of
    /// the recommendation ran and why (Q's owner is kept in `by-branch`).
    @Test func explainTodayReproducesTheAnswerWithItsVariant() throws {
        let store = Store()
        let common = [
            "--db", store.path, "--rules", Repository.rules, "--plugins", Repository.plugins, "--now",
            "2026-11-29T12:00:00Z", "--format", "json",
        ]
        let explained = journey(["explain", "today", "q-123"] + common)
        #expect(explained.status == 0, "\(explained.stderr)")
        let explanation = try JV.parse(explained.stdout).json()
        let today = try JV.parse(store.dog("today", "q-123", "--format", "json").stdout).json()
        #expect(explanation["answer"] == today)
        let recommendation = explanation["evaluations"]?.arrayValue?.first { $0["rule"] == "recommendation" }
        #expect(recommendation?["variant"] == "by-branch")
        #expect(recommendation?["assignment"]?.stringValue?.hasPrefix("by-branch (sticky") == true)
        #expect(recommendation?["input"]?.stringValue?.hasPrefix("object, ") == true, "a summary without --full")
        let full = try JV.parse(journey(["explain", "today", "q-123", "--full"] + common).stdout).json()
        #expect(full["evaluations"]?[0]?["input"]?["dog"] != nil, "--full: the whole input")

        #expect(journey(["explain", "tomorrow", "q-123"] + common).status == 64)
        #expect(journey(["explain", "path", "q-123"] + common).status == 64, "path needs a branch")
        let unknown = journey(["explain", "today", "nobody"] + common)
        #expect(unknown.status == 1 && unknown.stderr.contains("unknown_dog"), "\(unknown.stderr)")
    }

    /// `journey explain event`: the stored outcome beside what each event rule makes of the
    /// event now (the vaccine record e-003 of Q: an analytics event and a record).
    @Test func explainEventShowsTheStoredOutcomeAndTheRules() throws {
        let store = Store()
        let common = [
            "--db", store.path, "--rules", Repository.rules, "--plugins", Repository.plugins, "--now",
            "2026-11-29T12:00:00Z", "--format", "json",
        ]
        let run = journey(["explain", "event", "owner-1", "e-003"] + common)
        #expect(run.status == 0, "\(run.stderr)")
        let explanation = try JV.parse(run.stdout).json()
        #expect(explanation["answer"]?["type"] == "vaccine_added")
        let stored = explanation["answer"]?["stored_outcome"]?.arrayValue ?? []
        #expect(
            stored.contains { $0["type"] == "record_added" && $0["kind"] == "vaccine" }, "\(run.stdout.prefix(400))")
        // What made each stored effect: the revision that ingested it, and per effect its rule.
        let by = explanation["answer"]?["stored_by"]
        #expect(by?["revision"] == explanation["revision"], "the sample was ingested with the bundled rules")
        let origins = by?["effects"]?.arrayValue ?? []
        #expect(origins.count == stored.count)
        let recordOrigin = zip(stored, origins).first { $0.0["type"] == "record_added" }?.1
        #expect(recordOrigin?["rules"]?[0]?["rule"] == "events.records", "\(by ?? .null)")
        let records = explanation["evaluations"]?.arrayValue?.first { $0["rule"] == "events.records" }
        #expect(records?["outputs"]?[0]?[0]?["kind"] == "vaccine", "\(run.stdout.prefix(600))")
        let unknown = journey(["explain", "event", "owner-1", "nope"] + common)
        #expect(unknown.status == 1 && unknown.stderr.contains("unknown_event"), "\(unknown.stderr)")
        #expect(journey(["explain", "event", "owner-1"] + common).status == 64)
    }

    @Test func todayTextAndJSON() throws {
        let store = Store()
        let text = store.dog("today", "q-123", "--locale", "en")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("Today for Q\n"))
        // Q's owner is in the `by-branch` variation of recommendation-v2 (kept since the
        // registration), so Today recommends the nearest block of the weakest branch and offers
        // to continue the block Q started.
        let assignment = try JV.parse(
            journey(
                "assign", "recommendation-v2", "--user", "owner-1", "--db", store.path, "--rules", Repository.rules,
                "--plugins", Repository.plugins, "--format", "json"
            ).stdout
        ).json()
        #expect(assignment["variation"] == "by-branch")
        #expect(assignment["reason"] == "sticky")
        #expect(text.stdout.contains("Recommended: Vaccination record (health)"))
        #expect(text.stdout.contains("Continue: Bond-building games — next: theory"))
        #expect(text.stdout.contains("Health & body      █░░░░░░  1 of 7"))
        let json = try JV.parse(store.dog("today", "q-123", "--format", "json").stdout).json()
        #expect(json["recommended"]?["block_id"] == "vaccination-record")
        #expect(json["continue"]?["block_id"] == "bond-building-games")
        #expect(json["branches"]?.arrayValue?.map { $0["completed"] ?? .null } == [1, 0, 0])
    }

    @Test func journeyPathPreviewAndMap() throws {
        let store = Store()
        let overview = try JV.parse(store.dog("journey", "q-123", "--format", "json").stdout).json()
        #expect(overview["label"] == "1 из 21", "the default locale: the owner has no profile")
        let english = try JV.parse(store.dog("journey", "q-123", "--locale", "en", "--format", "json").stdout).json()
        #expect(english["label"] == "1 of 21")
        #expect(store.dog("journey", "q-123", "--locale", "xx").stderr.contains("the locales are ru, en"))
        #expect(overview["branches"]?.arrayValue?.first { $0["is_recommended"] == true }?["id"] == "health")
        let path = try JV.parse(store.dog("path", "q-123", "health", "--format", "json").stdout).json()
        #expect(path["nodes"]?[0]?["status"] == "completed")
        #expect(path["nodes"]?[1]?["status"] == "recommended")
        #expect(path["nodes"]?[2]?["status"] == "available")
        let preview = store.dog("preview", "q-123", "leash-manners", "--locale", "en")
        #expect(preview.stdout.contains("Locked: finish Recall foundations and Calm settling on a mat first"))
        // Without --locale: the owner's profile's, else the default, Russian.
        let russian = store.dog("preview", "q-123", "leash-manners")
        #expect(russian.stdout.hasPrefix("Прогулка на свободном поводке — locked"), "\(russian.stdout)")
        #expect(russian.stdout.contains("Locked: finish Основы подзыва and Спокойствие на коврике first"))
        let german = store.dog("preview", "q-123", "leash-manners", "--locale", "de")
        #expect(german.status != 0 && german.stderr.contains("no texts for locale `de`; the locales are ru, en"))
        let map = try JV.parse(store.dog("map", "q-123", "--format", "json").stdout).json()
        #expect(map["lines"]?.arrayValue?.map { $0["nodes"]?.arrayValue?.count ?? 0 } == [7, 7, 7])
    }

    @Test func errors() throws {
        let store = Store()
        #expect(store.dog("today", "nobody").stderr.contains("Error: no dog nobody [unknown_dog]"))
        #expect(
            store.dog("path", "q-123", "space").stderr.contains("no branch `space`; branches: health, mind, lifestyle"))
        #expect(store.dog("preview", "q-123", "nope").stderr.contains("Q's journey has no block `nope`"))
        #expect(store.dog("path", "q-123").status == 64)
        #expect(journey("dog", "today", "q-123", "--db", "/nonexistent.sqlite").stderr.contains("no store at"))
    }
}
