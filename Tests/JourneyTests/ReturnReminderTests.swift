import Core
import Engine
import FeatureKit
import Foundation
import Store
import TestSupport
import Testing

/// The two-week return after the weight baseline ("weigh Q again" → the Progress review):
/// a weight saved later does not overwrite it (a reminder that leads to a block outranks the
/// plain "weigh again" of the same kind), and the Progress review is not offered to count the
/// baseline weight itself.
@Suite struct ReturnReminderTests {
    struct ReturnCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Hours after the baseline of weights saved later (in the order they arrive).
        var laterWeights: [Double]
        /// Whether the Progress review then offers to count a weight.
        var offered: Bool
        var testDescription: String { name }
    }

    static let cases: [ReturnCase] = [
        ReturnCase(name: "the baseline alone", laterWeights: [], offered: false),
        ReturnCase(name: "a weight an hour later", laterWeights: [1], offered: true),
        ReturnCase(name: "weights on days 3 and 20", laterWeights: [72, 480], offered: true),
        ReturnCase(name: "a weight the same minute as the baseline", laterWeights: [0], offered: false),
    ]

    @Test(arguments: cases)
    func theReturnReminderKeepsLeadingToTheProgressReview(_ testCase: ReturnCase) throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        try BlockResultTests.prepare(journey, "weight-baseline")
        let done = journey.send("weight_saved", ["kg": 7.4])
        let baseline = journey.clock
        #expect(done.effects.contains { $0["type"] == "block_completed" }, "\(done.json.compactText)")
        for hours in testCase.laterWeights {
            journey.clock = max(journey.clock, baseline + hours * 3600)
            let later = journey.ingest([
                "event_id": .string("later-\(hours)"), "user_id": "owner", "type": "weight_saved", "dog_id": "miso",
                "occurred_at": .string(Timestamp.format(baseline + hours * 3600)), "payload": ["kg": 8],
            ])
            #expect(later.status == .accepted, "\(later.json.compactText)")
        }
        let pending = try journey.store.dueReminders(before: .infinity, limit: 10).filter { $0.kind == "weigh_again" }
        #expect(pending.count == 1, "\(pending)")
        #expect(pending.first?.payload["leads_to"] == "growth-check", "\(pending)")
        // The text is kept as its key and rendered in the recipient's locale when read.
        let text = try #require(pending.first?.payload["text"])
        #expect(text["$text"] == "journey.block.weight-baseline.reminder.text")
        let catalog = journey.evaluator.ruleSet.texts
        for (locale, expected) in [
            ("ru", "Взвесьте Miso: прошло 2 недели с первого замера."),
            ("en", "Time to weigh Miso again — two weeks since the baseline."),
        ] {
            let texts = RequestTexts.choose(profile: nil, acceptLanguage: locale, catalog: catalog)
            #expect(DeferredText.rendered(text, texts: texts) == .string(expected))
        }
        #expect(pending.first?.dueAt == baseline + 14 * 86_400)
        let preview = try journey.views.preview("miso", block: "growth-check")
        #expect(preview["status"] != "locked")
        #expect((preview["offer"].map { $0 != .null } ?? false) == testCase.offered, "\(preview.compactText)")
    }
}
