import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// The walk-through onboarding document (seed 004) through the API alone, with a user's bearer
/// token, on a running `journey serve`: the flows' configuration for a coordinator in the app
/// (the user's variant, `completed_step_ids`, the version), each step's overlay (target,
/// highlight, tooltip, trigger, can_skip), the app's UI events completing the steps, a skip,
/// the chained flow shown as the first ends, and the step analytics (duration, skipped). Once
/// for a Russian user (their profile says `ru`) and once for an English one (no profile, the
/// phone's `Accept-Language`): every text in their locale, the documents' Russian texts verbatim
/// (seed 002: the button «Вот это технологии», «Каждый день»).
@Suite struct LiveOnboardingDocumentTests {
    /// A user and what they must read.
    struct Reader: Sendable, CustomTestStringConvertible {
        var user: String
        /// Their profile's locale (nil: none set).
        var profile: String?
        var acceptLanguage: String?
        var title: String
        var button: String
        /// In the tooltip of the step whose button it is.
        var tapTheButton: String
        /// In the schedule step's tooltip (the guided variant).
        var everyDay: String
        /// How many steps are left → what the view says.
        var stepsLeft: [Int: String]
        var testDescription: String { "\(user) (\(profile ?? acceptLanguage ?? ""))" }
    }

    static let readers = [
        Reader(
            user: "olga", profile: "ru", acceptLanguage: "en-US,en;q=0.9", title: "Первый запуск",
            button: "Вот это технологии", tapTheButton: "Нажмите «Вот это технологии»", everyDay: "«Каждый день»",
            stepsLeft: [
                0: "Последний шаг", 1: "Остался 1 шаг", 2: "Осталось 2 шага", 3: "Осталось 3 шага",
                4: "Осталось 4 шага", 5: "Осталось 5 шагов", 6: "Осталось 6 шагов",
            ]),
        Reader(
            user: "emma", profile: nil, acceptLanguage: "en-GB,en;q=0.9,ru;q=0.5", title: "First launch",
            button: "Wow, technology", tapTheButton: "Tap «Wow, technology»", everyDay: "Every day",
            stepsLeft: [
                0: "Last step", 1: "1 step left", 2: "2 steps left", 3: "3 steps left", 4: "4 steps left",
                5: "5 steps left", 6: "6 steps left",
            ]),
    ]

    /// The UI event that performs a step whose trigger is a jq expression (the app's screens
    /// publish these).
    static let expressionSteps: [String: JSON] = [
        "type_name": ["type": "ui_text_changed", "payload": ["element_id": "tracker_name_field", "text": "Walk"]],
        "fill_form": ["type": "ui_text_changed", "payload": ["element_id": "tracker_name_field", "text": "Walk"]],
        "choose_category": ["type": "ui_tap", "payload": ["element_id": "category_option_home"]],
        "pick_style": ["type": "ui_tap", "payload": ["element_id": "emoji_option_1"]],
    ]

    @Test(arguments: readers)
    func bothFlowsFromTheFirstLaunchToTheFirstTracker(_ reader: Reader) throws {
        let service = try LiveService.withTokens()
        defer { service.stop() }
        let user = reader.user
        let app = App(service: service, token: AuthFixture.token(user), acceptLanguage: reader.acceptLanguage)
        if let locale = reader.profile {
            let (status, profile) = try app.json("PUT", "/v1/users/\(user)/profile", ["locale": .string(locale)])
            #expect(status == 200 && profile["effective_locale"] == .string(locale), "\(profile)")
        }
        // Events a few minutes in the past, ten seconds apart: every timer has run out by now.
        var clock = Date().timeIntervalSince1970.rounded(.down) - 600
        var counter = 0
        func send(_ type: String, _ payload: JSON = [:]) throws {
            counter += 1
            clock += 10
            let event: JSON = [
                "event_id": .string("\(user)-\(counter)"), "user_id": .string(user), "type": .string(type),
                "occurred_at": .string(Timestamp.format(clock)), "payload": payload,
            ]
            let (status, body) = try app.json("POST", "/v1/events", ["events": [event]])
            #expect(status == 200 && body["accepted"] == 1, "\(type): \(body)")
        }

        // Before the app opens: the coordinator's configuration, nothing started.
        let (status, before) = try app.json("GET", "/v1/users/\(user)/onboarding/flows")
        #expect(status == 200, "\(before)")
        #expect(before["flows"]?.arrayValue?.map { $0["flow_id"] ?? .null } == ["first_launch", "first_tracker"])
        #expect(before["flows"]?[0]?["title"] == .string(reader.title))
        try send("app_opened")
        var buttons: [String] = []
        var tooltips: [String: String] = [:]

        var seen: [String] = []
        var skipped: String?
        for _ in 0..<20 {
            let (_, view) = try app.json("GET", "/v1/users/\(user)/onboarding")
            guard let current = view["current"], current != .null, let step = current["step"] else { break }
            let id = try #require(step["id"]?.stringValue)
            seen.append("\(current["flow_id"]?.stringValue ?? "")/\(id)")
            // The overlay the app draws.
            for key in ["target_element_id", "highlight", "tooltip", "completion_trigger", "can_skip"] {
                #expect(step[key] != nil, "\(id): \(key)")
            }
            // Its texts, in the reader's locale.
            tooltips[id] = step["tooltip"]?["text"]?.stringValue
            if let button = step["texts"]?["button"]?.stringValue { buttons.append(button) }
            let left = Int(current["of"]?.numberValue ?? 0) - Int(current["position"]?.numberValue ?? 0)
            #expect(current["steps_left_text"]?.stringValue == reader.stepsLeft[left], "\(id): \(left) left")
            let trigger = step["completion_trigger"] ?? .null
            if skipped == nil, step["can_skip"] == true, current["flow_id"] == "first_tracker" {
                clock += 10
                let (skippedStatus, body) = try app.json(
                    "POST", "/v1/users/\(user)/onboarding/skip",
                    ["step_id": .string(id), "occurred_at": .string(Timestamp.format(clock))])
                #expect(skippedStatus == 200, "\(body)")
                skipped = id
            } else if let direction = trigger["swipe"] {
                try send("ui_swipe", ["direction": direction])
            } else if let element = trigger["tap"] {
                try send("ui_tap", ["element_id": element])
            } else if let event = Self.expressionSteps[id] {
                try send(event["type"]?.stringValue ?? "", event["payload"] ?? [:])
            } else {
                Issue.record("\(id): no way to perform \(trigger.compactText)")
                break
            }
        }
        #expect(seen.first?.hasPrefix("first_launch/") == true, "\(seen)")
        #expect(seen.contains("first_tracker/tap_add"), "the chained flow's first step is shown: \(seen)")
        #expect(seen.last?.hasSuffix("/tap_create") == true, "\(seen)")
        #expect(buttons == [reader.button], "the first launch's last page has the button: \(buttons)")
        let tapStep = seen.contains("first_launch/reminders_page") ? "reminders_page" : "welcome_page"
        #expect(tooltips[tapStep]?.contains(reader.tapTheButton) == true, "\(tooltips)")
        if let schedule = tooltips["set_schedule"] { #expect(schedule.contains(reader.everyDay), "\(schedule)") }
        let cyrillic = tooltips.values.contains { $0.unicodeScalars.contains { (0x400...0x4FF).contains($0.value) } }
        #expect(cyrillic == (reader.profile == "ru"), "\(tooltips)")

        // Both flows done: nothing to show; the coordinator sees every step completed or skipped.
        let (_, after) = try app.json("GET", "/v1/users/\(user)/onboarding")
        #expect(after["current"] == .null, "\(after)")
        let (_, flows) = try app.json("GET", "/v1/users/\(user)/onboarding/flows")
        for flow in flows["flows"]?.arrayValue ?? [] {
            #expect(flow["status"] == "finished", "\(flow)")
            #expect(flow["version"] != nil && flow["variant"]?.stringValue != nil)
            let done = (flow["completed_step_ids"]?.arrayValue ?? []) + (flow["skipped_step_ids"]?.arrayValue ?? [])
            #expect(done.count == flow["steps"]?.arrayValue?.count, "\(flow)")
        }

        // The step analytics leave the outbox with their duration and whether they were skipped.
        let exporter = App(service: service, token: AuthFixture.scraperToken)
        let (_, pending) = try exporter.json("GET", "/v1/analytics/pending?limit=500")
        let steps = (pending["events"]?.arrayValue ?? []).filter {
            $0["user_id"] == .string(user) && $0["name"] == "onboarding_step_completed"
        }
        let total = (flows["flows"]?.arrayValue ?? []).reduce(0) { $0 + ($1["steps"]?.arrayValue?.count ?? 0) }
        #expect(steps.count == total, "every step once (a timer step ends by itself): \(steps.count) of \(total)")
        #expect(steps.allSatisfy { $0["properties"]?["duration_seconds"]?.numberValue != nil })
        #expect(
            steps.contains {
                $0["properties"]?["skipped"] == true && $0["properties"]?["step_id"] == skipped.map(JSON.string)
            })

        // Another user's onboarding is not theirs to read.
        #expect(
            try App(service: service, token: AuthFixture.token("pavel")).json("GET", "/v1/users/\(user)/onboarding").0
                == 403)
    }
}
