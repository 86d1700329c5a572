import Core
import Foundation
import TestSupport
import Testing

/// The admin API that changes onboarding flows without YAML: every flow with its steps and
/// texts, a variant's steps changed as a draft revision (refusals named by pointer), the version
/// decision explicit and counted over the users who started the flow.
@Suite struct FlowRouteTests {
    /// For the tests that store nothing: one service, published and seeded once.
    static let shared = SharedSeededService { try FlowRouteTests.harness() }
    static let path = "/v1/onboarding/flows/first_launch"
    static let pages: [JSON] = [
        ["id": "welcome_page"], ["id": "streaks_page"], ["id": "reminders_page"], ["id": "main_screen"],
    ]
    static let newStep: JSON = [
        "id": "meet_stats", "target_element_id": "stats_tab", "highlight_shape": "circle", "placement": "above",
        "tooltip": ["ru": "Здесь видно, как растут ваши серии.", "en": "Here you see your streaks grow."],
        "trigger": ["event": "ui_tap", "element_id": "stats_tab"],
    ]

    /// `newStep` with `field` set to `value` (nil: left out).
    static func adding(_ field: String, _ value: JSON?) -> JSON {
        guard case .object(var step) = newStep else { return newStep }
        step[field] = value
        return ["variant": "pages", "steps": .array(pages + [.object(step)]), "version_change": "minor"]
    }

    /// A harness with the bundled rules published and onboarding.jsonl ingested: two users
    /// finished `pages`, one finished `single_page`.
    static func harness() throws -> ServiceHarness {
        let harness = try ServiceHarness(seed: false)
        let lines = try String(contentsOfFile: Repository.examples + "/onboarding.jsonl", encoding: .utf8)
        let events = try lines.split(separator: "\n").map { try JSONParser().parse(String($0)) }
        try #require(harness.send("POST", "/v1/events", json: ["events": .array(events)]).status == 200)
        _ = try ParameterRouteTests.publishBundled(harness)
        return harness
    }

    static let refusals: [ExperimentRouteTests.Refusal] = [
        .init(body: [:], status: 422, code: "invalid_request", fields: ["/steps": "missing"]),
        .init(
            body: ["variant": "pages", "steps": []], status: 422, code: "invalid_request", fields: ["/steps": "invalid"]
        ),
        .init(body: ["steps": .array(pages)], status: 422, code: "invalid_request", fields: ["/variant": "missing"]),
        .init(
            body: ["variant": "nope", "steps": .array(pages)], status: 422, code: "invalid_request",
            fields: ["/variant": "invalid"]),
        .init(
            body: ["variant": "pages", "steps": .array(pages), "version_change": "patch"], status: 422,
            code: "invalid_request", fields: ["/version_change": "invalid"]),
        .init(
            body: ["variant": "pages", "steps": .array(pages + [newStep])], status: 422, code: "invalid_request",
            fields: ["/version_change": "missing"]),
        .init(
            body: ["variant": "pages", "steps": .array(pages)], status: 422, code: "invalid_request",
            fields: ["/steps": "invalid"]),
        .init(
            body: [
                "variant": "pages", "steps": [["id": "welcome_page"], ["id": "welcome_page"]],
                "version_change": "minor",
            ],
            status: 422, code: "invalid_request", fields: ["/steps/1/id": "invalid"]),
        .init(
            body: [
                "variant": "pages", "steps": [["id": "welcome_page", "colour": "x"]], "version_change": "minor",
            ],
            status: 422, code: "invalid_request", fields: ["/steps/0/colour": "unknown"]),
        // A kept step's element, highlight and trigger are checked as a new step's are.
        .init(
            body: [
                "variant": "pages",
                "steps": .array([["id": "welcome_page", "highlight_shape": "star"]] + pages.dropFirst()),
            ],
            status: 422, code: "invalid_request", fields: ["/steps/0/highlight_shape": "invalid"]),
        .init(
            body: [
                "variant": "pages",
                "steps": .array(
                    [["id": "welcome_page", "trigger": ["event": "ui_tapp", "element_id": "x"]]] + pages.dropFirst()),
            ],
            status: 422, code: "invalid_request", fields: ["/steps/0/trigger/event": "invalid"]),
        .init(
            body: ["variant": "pages", "steps": .array(pages), "starts_on": ["app_opend"]], status: 422,
            code: "invalid_request", fields: ["/starts_on/0": "invalid"]),
        .init(
            body: ["variant": "pages", "steps": .array(pages), "starts_on": []], status: 422, code: "invalid_request",
            fields: ["/starts_on": "invalid"]),
        .init(
            body: adding("tooltip", nil), status: 422, code: "invalid_request", fields: ["/steps/4/tooltip": "missing"]),
        .init(
            body: adding("tooltip", ["ru": "Статистика"]), status: 422, code: "invalid_request",
            fields: ["/steps/4/tooltip/en": "missing"]),
        .init(
            body: adding("tooltip", ["ru": "Статистика", "en": "Stats", "de": "Statistik"]), status: 422,
            code: "invalid_request", fields: ["/steps/4/tooltip/de": "invalid"]),
        .init(
            body: adding("target_element_id", nil), status: 422, code: "invalid_request",
            fields: ["/steps/4/target_element_id": "missing"]),
        .init(
            body: adding("trigger", nil), status: 422, code: "invalid_request", fields: ["/steps/4/trigger": "missing"]),
        .init(
            body: adding("trigger", ["event": "app_opend", "element_id": "x"]), status: 422, code: "invalid_request",
            fields: ["/steps/4/trigger/event": "invalid"]),
        .init(
            body: adding("trigger", ["event": "ui_swipe", "direction": "sideways"]), status: 422,
            code: "invalid_request", fields: ["/steps/4/trigger/direction": "invalid"]),
        .init(
            body: adding("trigger", ["event": "ui_tap"]), status: 422, code: "invalid_request",
            fields: ["/steps/4/trigger/element_id": "missing"]),
        .init(
            body: adding("trigger", ["timer": 0]), status: 422, code: "invalid_request",
            fields: ["/steps/4/trigger/timer": "out_of_range"]),
        .init(
            body: adding("highlight_shape", "star"), status: 422, code: "invalid_request",
            fields: ["/steps/4/highlight_shape": "invalid"]),
        .init(
            body: adding("placement", "left"), status: 422, code: "invalid_request",
            fields: ["/steps/4/placement": "invalid"]),
        // A tooltip longer than the screen's 90 characters: refused by the gates, at its field.
        .init(
            body: adding(
                "tooltip", ["ru": .string(String(repeating: "Очень длинная подсказка. ", count: 5)), "en": "Stats"]),
            status: 422, code: "gates_refused", fields: ["/steps/4/tooltip/ru": "text_too_long"]),
    ]

    @Test(arguments: refusals) func refusedChangesNameTheirField(_ refusal: ExperimentRouteTests.Refusal) throws {
        try Self.shared.use { harness in try Self.refused(refusal, path: Self.path, harness) }
    }

    /// Checks that `refusal` is refused at its fields and stores nothing.
    static func refused(_ refusal: ExperimentRouteTests.Refusal, path: String, _ harness: ServiceHarness) throws {
        let answer = harness.send("PUT", path, json: refusal.body, admin: true)
        #expect(
            answer.status == refusal.status && answer.json["code"] == .string(refusal.code),
            "\(answer.text.prefix(600))")
        #expect(answer.json["message"]?.stringValue?.isEmpty == false)
        let errors = answer.json["errors"]?.arrayValue ?? []
        for (pointer, code) in refusal.fields {
            #expect(
                errors.contains { ($0["pointer"] ?? $0["path"]) == .string(pointer) && $0["code"] == .string(code) },
                "\(pointer) \(code): \(answer.text.prefix(600))")
        }
        let drafts = harness.send("GET", "/v1/rules/revisions", admin: true).json["revisions"]?.arrayValue ?? []
        #expect(drafts.count == 1, "nothing stored")
    }

    /// The editor's former names (issue 42: the app's are `placement` and a `highlight` object)
    /// are refused naming the new one, on a new step and a kept one alike; nothing is stored.
    @Test(arguments: [
        ("position", "placement", 4), ("highlight", "highlight_shape", 4), ("highlight", "highlight_shape", 0),
        ("position", "placement", 0),
    ])
    func aFormerNameIsRefusedNamingTheNewOne(old: String, new: String, index: Int) throws {
        let value: JSON = old == "position" ? "above" : "circle"
        var steps = Self.adding(old, value)["steps"]?.arrayValue ?? []
        if index == 0 { steps = [["id": "welcome_page", old: value]] + Self.pages.dropFirst() }
        let body: JSON = ["variant": "pages", "steps": .array(steps), "version_change": "minor"]
        try Self.shared.use { harness in
            let answer = harness.send("PUT", Self.path, json: body, admin: true)
            let error = answer.json["errors"]?.arrayValue?.first { $0["path"] == .string("/steps/\(index)/\(old)") }
            #expect(answer.status == 422 && error?["code"] == "invalid", "\(answer.text.prefix(600))")
            #expect(error?["message"] == .string("was renamed: send `\(new)` instead"), "\(answer.text.prefix(600))")
            let drafts = harness.send("GET", "/v1/rules/revisions", admin: true).json["revisions"]?.arrayValue ?? []
            #expect(drafts.count == 1, "nothing stored")
        }
    }

    @Test func anUnknownFlowIsNotFound() throws {
        try Self.shared.use { harness in
            let answer = harness.send(
                "PUT", "/v1/onboarding/flows/first_lunch", json: ["steps": .array(Self.pages)], admin: true)
            #expect(answer.status == 404 && answer.json["code"] == "unknown_flow", "\(answer.text)")
            #expect(answer.json["message"]?.stringValue?.contains("did you mean `first_launch`") == true)
            #expect(harness.send("GET", "/v1/onboarding/flows/nope", admin: true).status == 404)
            #expect(harness.send("GET", "/v1/onboarding/flows").status == 401, "admin only")
        }
    }

    @Test func theListGivesStepsTextsAndTheEventsAStepCanWaitFor() throws {
        let answer = try Self.shared.use { $0.send("GET", "/v1/onboarding/flows", admin: true) }
        #expect(answer.status == 200)
        #expect(answer.json["locales"] == ["ru", "en"])
        let events = answer.json["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
        #expect(
            ["ui_tap", "ui_swipe", "ui_element_visible", "ui_text_changed", "timer"].allSatisfy(
                events.contains) && !events.contains("habit_checked"), "the events a step can wait for")
        let flow = try #require(answer.json["flows"]?.arrayValue?.first { $0["id"] == "first_launch" })
        #expect(flow["version"] == "1.0" && flow["next_versions"] == ["minor": "1.1", "major": "2.0"])
        #expect(flow["started_users"] == 3 && flow["file"] == "Rules/onboarding/first_launch.yaml")
        let pages = flow["variants"]?[0]
        #expect(pages?["name"] == "pages" && pages?["started_users"] == 2 && pages?["finished_users"] == 2)
        let welcome = pages?["steps"]?[0]
        #expect(welcome?["tooltip"]?["texts"]?["en"] == "Swipe left to see how.")
        #expect(welcome?["completion_trigger"]?["swipe"] == "left")
        #expect(welcome?["tooltip"]?["shared_with"] == [])
        #expect(pages?["steps"]?[3]?["tooltip"]?["shared_with"] == ["single_page"], "main_screen's key is shared")
    }

    /// The check counts both choices; the minor one is kept as a draft with its consequence,
    /// written into the flow and the locale files line by line, and activated.
    @Test func aStepAddedWithTheMinorChoice() throws {
        let harness = try Self.harness()
        let body = Self.adding("can_skip", true)
        let checked = harness.send("POST", Self.path + "/check", json: body, admin: true)
        #expect(checked.status == 200 && checked.json["steps_change"] == true, "\(checked.text.prefix(400))")
        let impact = checked.json["impact"]
        #expect(impact?["started_users"] == 3 && impact?["finished_users"] == 2 && impact?["other_variant_users"] == 1)
        #expect(impact?["added_steps"] == ["meet_stats"] && impact?["removed_steps"] == [])
        #expect(impact?["minor_impact"]?["version"] == "1.1" && impact?["minor_impact"]?["see_new_steps"] == 2)
        #expect(impact?["major_impact"]?["version"] == "2.0" && impact?["major_impact"]?["start_again"] == 3)
        #expect(harness.send("GET", "/v1/rules/revisions", admin: true).json["revisions"]?.arrayValue?.count == 1)

        let kept = harness.send("PUT", Self.path, json: body, admin: true)
        #expect(kept.status == 201 && kept.json["active"] == false, "\(kept.text.prefix(600))")
        #expect(kept.json["version"] == "1.1" && kept.json["version_change"] == "minor")
        #expect(
            kept.json["consequences"]?[0]?.stringValue?.hasPrefix(
                "Finished users see only the new steps: 2 of the 2 users who finished `pages` will see the new step `meet_stats`"
            )
                == true, "\(kept.json["consequences"] ?? .null)")
        #expect(kept.json["draft_revision"]?["message"] == "flow first_launch 1.1 (pages): adds meet_stats")
        let revision = try #require(kept.json["draft_revision"]?["revision"]?.stringValue)
        let files = harness.send("GET", "/v1/rules/revisions/\(revision)", admin: true).json["files"]
        let flow = files?["Rules/onboarding/first_launch.yaml"]?.stringValue ?? ""
        #expect(flow.contains("version: \"1.1\"\n"))
        #expect(
            flow.contains(
                """
                      completion_trigger: {timer: 4}
                      can_skip: true
                    - id: meet_stats
                      target_element_id: "stats_tab"
                      highlight: circle
                      tooltip: {key: onboarding.first_launch.meet_stats.tooltip, position: above}
                      completion_trigger: {tap: "stats_tab"}
                      can_skip: true
                  single_page:
                """), "\(flow)")
        let ru = files?["Rules/locales/ru.yaml"]?.stringValue ?? ""
        #expect(
            ru.contains(
                "onboarding.first_launch.meet_stats.tooltip: {text: \"Здесь видно, как растут ваши серии.\", limit: 90}"
            ))
        let activated = harness.send(
            "POST", "/v1/rules/revisions/\(revision)/activate", json: ["message": "show where streaks live"],
            admin: true)
        #expect(activated.status == 200, "\(activated.text.prefix(300))")
    }

    /// Reordering, removing and rewording: the blocks of the kept steps are copied as written.
    @Test func reorderRemoveAndRewordWithTheMajorChoice() throws {
        let harness = try Self.harness()
        let body: JSON = [
            "variant": "pages", "version_change": "major",
            "steps": [
                ["id": "streaks_page", "tooltip": ["en": "Each day you check a habit, the streak grows."]],
                ["id": "welcome_page"], ["id": "main_screen"],
            ],
        ]
        let kept = harness.send("PUT", Self.path, json: body, admin: true)
        #expect(kept.status == 201, "\(kept.text.prefix(600))")
        #expect(kept.json["version"] == "2.0" && kept.json["impact"]?["removed_steps"] == ["reminders_page"])
        #expect(
            kept.json["consequences"]?[0]?.stringValue?.hasPrefix(
                "Everyone starts again: all 3 users who started `first_launch`") == true)
        #expect(
            kept.json["draft_revision"]?["message"]
                == "flow first_launch 2.0 (pages): removes reminders_page; rewords streaks_page (en)")
        let revision = try #require(kept.json["draft_revision"]?["revision"]?.stringValue)
        let flows = harness.send("GET", "/v1/rules/revisions/\(revision)", admin: true).json["files"]
        let text = flows?["Rules/onboarding/first_launch.yaml"]?.stringValue ?? ""
        let ids = text.split(separator: "\n").filter { $0.hasPrefix("    - id: ") }.map { $0.dropFirst(10) }
        #expect(ids == ["streaks_page", "welcome_page", "main_screen", "welcome_page", "main_screen"], "\(text)")
        #expect(
            flows?["Rules/locales/en.yaml"]?.stringValue?.contains(
                "  onboarding.first_launch.streaks_page.tooltip: \"Each day you check a habit, the streak grows.\"\n")
                == true)

        // Texts only: the version stays.
        let reworded = harness.send(
            "PUT", Self.path,
            json: [
                "variant": "single_page",
                "steps": [["id": "welcome_page", "tooltip": ["ru": "Нажмите, чтобы начать."]], ["id": "main_screen"]],
            ],
            admin: true)
        #expect(reworded.status == 201 && reworded.json["version"] == "1.0", "\(reworded.text.prefix(400))")
        #expect(reworded.json["version_change"] == "none")
    }
}

extension FlowRouteTests {
    /// A kept step's element, highlight and trigger, and `starts_on`, change in place and keep
    /// the version; the counts say who meets the change; a shared tooltip says where else it shows.
    @Test func keptStepFieldsAndStartsOnKeepTheVersion() throws {
        let harness = try Self.harness()
        let body: JSON = [
            "variant": "pages", "starts_on": ["app_opened", "habit_checked"],
            "steps": [
                [
                    "id": "welcome_page", "target_element_id": "intro_page_one", "highlight_shape": "circle",
                    "trigger": ["event": "ui_tap", "element_id": "intro_next"],
                ],
                ["id": "streaks_page", "trigger": ["event": "ui_swipe", "direction": "left"]],
                ["id": "reminders_page"], ["id": "main_screen", "tooltip": ["en": "Your day's habits live here."]],
            ],
        ]
        let checked = harness.send("POST", Self.path + "/check", json: body, admin: true)
        #expect(checked.status == 200 && checked.json["steps_change"] == false, "\(checked.text.prefix(400))")
        #expect(checked.json["edited_steps"] == ["welcome_page"], "the unchanged swipe is no edit")
        #expect(checked.json["starts_on_change"] == true)
        let kept = checked.json["impact"]?["kept_impact"]
        #expect(kept?["version"] == "1.0" && kept?["meet_changed"] == 0 && kept?["passed_changed"] == 2)
        #expect(kept?["says"]?.stringValue?.contains("2 users who did it do not see it again") == true)
        #expect(
            checked.json["shared_texts"]?[0]?.stringValue?.contains("also shown in variant `single_page`") == true,
            "\(checked.json["shared_texts"] ?? .null)")

        let answer = harness.send("PUT", Self.path, json: body, admin: true)
        #expect(answer.status == 201 && answer.json["version"] == "1.0", "\(answer.text.prefix(600))")
        #expect(answer.json["version_change"] == "none")
        let consequences = answer.json["consequences"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(
            consequences.contains { $0.hasPrefix("Changing how `welcome_page` looks or completes keeps version 1.0") })
        #expect(consequences.contains { $0.contains("also shown in variant `single_page`") })
        #expect(
            answer.json["draft_revision"]?["message"]
                == "flow first_launch 1.0 (pages): changes welcome_page; rewords main_screen (en); starts on app_opened, habit_checked"
        )
        let revision = try #require(answer.json["draft_revision"]?["revision"]?.stringValue)
        let files = harness.send("GET", "/v1/rules/revisions/\(revision)", admin: true).json["files"]
        let flow = files?["Rules/onboarding/first_launch.yaml"]?.stringValue ?? ""
        #expect(flow.contains("starts_on: [app_opened, habit_checked]\n") && flow.contains("version: \"1.0\"\n"))
        #expect(
            flow.contains(
                """
                    - id: welcome_page
                      target_element_id: "intro_page_one"
                """)
                && flow.contains(
                    "      highlight: circle\n      tooltip:\n        key: onboarding.first_launch.welcome_page.tooltip"
                ),
            "\(flow)")
        #expect(flow.contains("      completion_trigger: {tap: \"intro_next\"}\n"), "\(flow)")
        #expect(flow.components(separatedBy: "completion_trigger: {swipe: left}").count == 2, "the other swipe kept")
    }

    /// The catalogue of app events: each declared by its feature with a description; types
    /// only rules name are listed with those rules.
    @Test func theCatalogueOfAppEvents() throws {
        let answer = try Self.shared.use { $0.send("GET", "/v1/app-events", admin: true) }
        #expect(answer.status == 200, "\(answer.text.prefix(300))")
        let events = answer.json["events"]?.arrayValue ?? []
        let byType = Dictionary(events.map { ($0["type"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let cases: [(type: String, feature: JSON, field: JSON)] = [
            ("ui_tap", "onboarding", "element_id"), ("ui_swipe", "onboarding", "direction"),
            ("app_opened", "onboarding", .null), ("habit_checked", "habits", .null),
            ("challenge_joined", "challenges", .null), ("check_answered", "journey", .null),
            ("weight_saved", .null, .null),
        ]
        for (type, feature, field) in cases {
            let event = byType[type]
            #expect(event?["feature"] == feature && event?["field"] == field, "\(type): \(event ?? .null)")
            #expect(event?["description"]?.stringValue?.isEmpty == false, "\(type)")
        }
        #expect(byType["weight_saved"]?["rule_ids"]?.arrayValue?.contains("events.records") == true)
        #expect(try Self.shared.use { $0.send("GET", "/v1/app-events") }.status == 401, "admin only")
    }
}

/// Shares one service, made by `make`, between tests that leave it as they found it.
final class SharedSeededService: @unchecked Sendable {
    private let lock = NSLock()
    private var harness: ServiceHarness?
    private let make: @Sendable () throws -> ServiceHarness

    init(_ make: @escaping @Sendable () throws -> ServiceHarness) { self.make = make }

    func use<T>(_ body: (ServiceHarness) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if harness == nil { harness = try make() }
        return try body(harness!)
    }
}
