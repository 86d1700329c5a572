import Core
import Engine
import Foundation
import JQ
import Journey
import RuleEngine
import Store
import TestSupport
import Testing

/// A sample dog walks through every block of the catalog (Cases/walkthrough.yaml), through
/// events only, checking statuses and views at each step.
@Suite struct WalkthroughTests {
    @Test(.hangLimit)
    func everyBlockOfTheCatalog() throws {
        let spec = try CaseFile("walkthrough.yaml").document
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00+01:00")
        let registration = journey.ingest(try #require(spec["dog"]?["event"]))
        #expect(registration.status == .accepted, "\(registration.json.compactText)")
        let manifest = try #require(registration.effects.first { $0["type"] == "manifest_created" })
        #expect(manifest["recommended_first"] == spec["dog"]?["first_recommended"])
        // The first block's card: its label kept as a key, written in the reader's locale.
        #expect(manifest["insights"]?.arrayValue?.last?["label"]?["$text"] == "journey.insight.recommended_first")
        #expect(try journey.views.journey("miso")["insights"]?.arrayValue?.last?["label"] == "С чего начать")
        #expect(
            try journey.views(locale: "en").journey("miso")["insights"]?.arrayValue?.last?["label"]
                == "Recommended first")
        #expect(
            try journey.views.journey("miso")["insights"]?.arrayValue?.last?["text"]?.stringValue?.contains(": ")
                == true)
        // The metric cards and the note too: keys with the dog's name, written when shown.
        let insights = journey.rendered(manifest["insights"], "en")?.arrayValue
        #expect(insights?.first?["text"]?.stringValue?.contains("Miso") == true)
        #expect(manifest["notes"]?[0]?["$text"] == "journey.note.weakest")
        #expect(journey.rendered(manifest["notes"], "en")?[0]?.stringValue?.contains("Miso's weakest metric") == true)

        let state = try journey.views.state("miso")
        let blocks = state.map.blocks
        #expect(blocks.count == 21)
        var completed: Set<String> = []
        var laterDone = false
        var autoCompleteData = spec["auto_complete"]?.objectValue ?? [:]

        func expectStatuses(_ place: String) throws {
            let now = try journey.views.state("miso")
            for block in blocks {
                let needsDone = block.needs.allSatisfy(completed.contains)
                let expected: Set<BlockStatus> =
                    completed.contains(block.id) ? [.completed] : needsDone ? [.available, .recommended] : [.locked]
                #expect(
                    expected.contains(now.status(of: block.id)), "\(place): \(block.id) is \(now.status(of: block.id))")
            }
        }

        var step = 0
        while completed.count < blocks.count {
            step += 1
            try #require(step <= 30, "the walkthrough does not finish")
            // Today recommends an available block; the walkthrough follows it.
            let todayView = try journey.views.today("miso")
            let id = try #require(
                todayView["recommended"]?["block_id"]?.stringValue
                    ?? blocks.first { !completed.contains($0.id) && $0.needs.allSatisfy(completed.contains) }?.id,
                "nothing to do at step \(step)")
            let block = try #require(state.map.block(id))
            try expectStatuses("before \(id)")

            // Preview: exactly three lines and «Начать · N мин»; a locked block names what to finish.
            let preview = try journey.views.preview("miso", block: id)
            #expect(preview["text_lines"]?.arrayValue?.count == 3)
            #expect(preview["text_lines"]?.arrayValue?.allSatisfy { !($0.stringValue ?? "").isEmpty } == true)
            #expect(preview["start"] == .string("Начать · \(block.minutes) мин"))
            #expect(
                try journey.views(locale: "en").preview("miso", block: id)["start"]
                    == .string("Start · \(block.minutes) min"))
            if let locked = blocks.first(where: {
                !completed.contains($0.id) && !$0.needs.allSatisfy(completed.contains)
            }) {
                let lockedPreview = try journey.views.preview("miso", block: locked.id)
                #expect(lockedPreview["status"] == "locked")
                #expect(lockedPreview["finish_first"]?.arrayValue?.isEmpty == false)
                let refused = journey.send("block_started", ["block_id": .string(locked.id)])
                #expect(refused.code == "invalid" && refused.message?.contains("is locked") == true)
            }

            if let data = autoCompleteData[id] {
                autoCompleteData[id] = nil
                // The data exists before the block: the offer shows, and accepting it credits the action.
                #expect(
                    journey.send(data["type"]?.stringValue ?? "", data["payload"]?.objectValue ?? [:]).status
                        == .accepted)
                #expect(
                    try journey.views.preview("miso", block: id)["offer"]?.stringValue?.hasPrefix("Нашли 1 ") == true)
                #expect(
                    try journey.views(locale: "en").preview("miso", block: id)["offer"]?.stringValue?.hasPrefix(
                        "Found 1 ") == true)
            }

            #expect(journey.send("block_started", ["block_id": .string(id)]).status == .accepted)
            // The started block shows on Today: as the Continue card, or as the recommended card with its next step.
            let started = try journey.views.today("miso")
            let continues = started["continue"]?["block_id"] == JSON.string(id)
            let recommendedWithStep =
                started["recommended"]?["block_id"] == JSON.string(id) && started["recommended"]?["next_step"] != nil
            #expect(continues || recommendedWithStep, "\(id): \(started.compactText)")
            let theory = journey.send("theory_viewed", ["block_id": .string(id)])
            #expect(theory.status == .accepted)
            #expect(try journey.views.state("miso").isCompleted(id) == false, "reading alone never completes a block")

            if block.checkType == spec["later_once"]?.stringValue, !laterDone {
                laterDone = true
                let later = journey.send("check_answered", ["block_id": .string(id), "answer": ["outcome": "later"]])
                #expect(later.status == .accepted)
                let reminder = try #require(later.effects.first { $0["type"] == "reminder_scheduled" })
                #expect(reminder["kind"] == "check_later")
                #expect(try journey.views.state("miso").steps[id]?.contains("check") == false, "the block stays open")
            }
            var answer = try answer(for: block, spec: spec)
            if block.checkType == "predict", case .object(var measured) = answer, let guess = measured["guess"] {
                // Predict, then check: the guess alone keeps the block open and reveals the reference.
                let guessed = journey.send("check_answered", ["block_id": .string(id), "answer": ["guess": guess]])
                let told = guessed.effects.first { $0["type"] == "check_answered" }
                #expect(told?["complete"] == false, "\(id): \(guessed.json.compactText)")
                #expect(journey.rendered(told?["interpretation"], "ru")?.stringValue?.contains("Обычно:") == true)
                #expect(journey.rendered(told?["interpretation"], "en")?.stringValue?.contains("Typical:") == true)
                measured["guess"] = nil  // the measurement completes the guess kept
                answer = .object(measured)
            }
            let checked = journey.send("check_answered", ["block_id": .string(id), "answer": answer])
            #expect(checked.status == .accepted, "\(id): \(checked.json.compactText)")
            #expect(checked.effects.contains { $0["type"] == "check_answered" && $0["complete"] == true })
            #expect(checked.effects.contains { $0["type"] == "record_added" })

            let before = try journey.views.state("miso")
            let last: IngestResult
            if block.autoCompleteRule != nil, spec["auto_complete"]?[id] != nil {
                last = journey.send("auto_complete_accepted", ["block_id": .string(id)])
            } else {
                let action = try #require(spec["actions"]?[block.actionType])
                var payload = action["payload"]?.objectValue ?? [:]
                if payload["course_id"] == "course_id" { payload["course_id"] = .string(block.courseID ?? "") }
                last = journey.send(action["type"]?.stringValue ?? "", payload)
            }
            #expect(last.status == .accepted, "\(id): \(last.json.compactText)")
            let done = try #require(last.effects.first { $0["type"] == "block_completed" }, "\(id) did not complete")
            #expect(done["block_id"] == .string(id))
            completed.insert(id)
            #expect(
                done["changed"]?.arrayValue?.contains { $0["what"] == "record_added" } == true,
                "\(id): what changed names the check's record: \(done.compactText)")
            // The one next block offered: one this completion unlocked (the same branch first),
            // else the one Today recommends now.
            let after = try journey.views.state("miso")
            let unlocked = after.map.blocks.filter {
                before.status(of: $0.id) == .locked && after.status(of: $0.id) != .locked
            }
            if let first = unlocked.first(where: { $0.branch == block.branch }) ?? unlocked.first {
                #expect(done["next_block"] == .string(first.id), "\(id): \(done.compactText)")
                #expect(done["next_reason"] == "unlocked")
            } else if completed.count < blocks.count {
                let next = try journey.views.today("miso")["recommended"]?["block_id"]
                #expect(
                    done["next_block"] == next || next == .null,
                    "\(id): next \(done["next_block"] ?? .null) vs \(next ?? .null)")
                #expect(done["next_reason"] == "recommended" || next == .null)
            }
            try expectStatuses("after \(id)")
        }

        let overview = try journey.views.journey("miso")
        #expect(overview["label"] == "21 из 21")
        #expect(try journey.views(locale: "en").journey("miso")["label"] == "21 of 21")
        #expect(try journey.views.map("miso")["caption"] == "Пройдено: 21 из 21")
        #expect(try journey.views(locale: "en").map("miso")["caption"] == "21 of 21 completed")
        #expect(try journey.views.today("miso")["recommended"] == .null)
        for (kind, count) in spec["reminders"]?.objectValue ?? [:] {
            #expect(
                try journey.count("SELECT count(*) FROM reminders WHERE kind = '\(kind)'")
                    == Int(count.numberValue ?? -1), "\(kind)")
        }
        #expect(try journey.count("SELECT count(*) FROM analytics_outbox WHERE name = 'block_completed'") == 21)
        #expect(try journey.count("SELECT count(*) FROM analytics_outbox WHERE name = 'check_completed'") == 21)
        #expect(
            try journey.count("SELECT count(*) FROM analytics_outbox WHERE name = 'course_started_from_journey'") == 2)
        #expect(
            try journey.count("SELECT count(*) FROM analytics_outbox WHERE name = 'ai_interpretation_generated'") == 1)
        let path = try journey.views.path("miso", branch: "mind")
        #expect(path["nodes"]?.arrayValue?.allSatisfy { $0["status"] == "completed" } == true)
        let map = try journey.views.map("miso")
        #expect(map["lines"]?.arrayValue?.count == 3)

        // The walk's events in other orders of arrival (batches split differently, resends of
        // what was refused) end in the same store: steps, records, reminders, analytics.
        var generator = SplitMix64(seed: 7)
        let differences = try EngineArrivalOrderTests.differencesInAnyOrder(
            of: journey.accepted, evaluator: journey.evaluator, receivedAt: journey.clock + 60, permutations: 20,
            using: &generator)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    /// The walkthrough's answer to a block's check, from the case file and the check itself.
    func answer(for block: JourneyMap.Block, spec: JSON) throws -> JSON {
        let check = block.content["check"] ?? [:]
        var answer = try #require(spec["answers"]?[block.checkType]?.objectValue)
        for (key, value) in answer {
            switch value {
            case "first_option": answer[key] = check["options"]?[0]?["id"] ?? .null
            case "first_outcome": answer[key] = check["outcomes"]?[0]?["id"] ?? .null
            case "reference_low": answer[key] = check["reference"]?["ranges"]?["default"]?[0] ?? .null
            case "reference_high": answer[key] = check["reference"]?["ranges"]?["default"]?[1] ?? .null
            default: break
            }
        }
        return .object(answer)
    }
}
