import Core
import FeatureKit
import HTTP
import Revisions
import RuleEngine
import Store

/// A change of one variant of a flow that a `PUT /v1/onboarding/flows/{flow_id}` (or its check)
/// asks for, read and written into the base revision's files: the flow document (the steps,
/// the version) and the locale files (the tooltips' texts).
struct FlowDraft {
    var base: DraftRevision
    var flow: OnboardingFlow
    var variant: String
    var steps: [String]
    var stepsChange: Bool
    /// The kept steps whose element, highlight or trigger change (the version stays).
    var editedSteps: [String] = []
    /// The flow's new `starts_on`, when it changes (the version stays).
    var startsOn: [String]?
    /// Each reworded tooltip shared with other variants: "step (en): also shown in variant X".
    var sharedTexts: [String] = []
    var versionChange: String
    var version: String
    var message: String?
    /// Path → the edited file's text (empty for a check).
    var edited: [String: String] = [:]
    private var flowPath = ""
    private var stepLines: [Int: String] = [:]

    /// Reads the request; with `keeping`, also writes the files (and requires the version
    /// decision when the steps change).
    init(_ request: HTTPRequest, flow id: String, service: any ServiceContext, keeping: Bool) throws(APIError) {
        var fields = try RequestBody.fields(request)
        let variantName = (try? fields.optionalIdentifier("variant")) ?? nil
        let stepItems = (try? fields.array("steps")) ?? []
        let change = (try? fields.optionalString("version_change")) ?? nil
        message = (try? fields.optionalString("message", maxLength: 2_000)) ?? nil
        let baseName = ((try? fields.optionalIdentifier("base")) ?? nil) ?? "active"
        let startItems = fields.has("starts_on") ? (try? fields.array("starts_on")) : nil
        if let startItems, startItems.isEmpty || startItems.count > 20 {
            fields.fail("starts_on", .invalid, "names from 1 to 20 event types that start the flow")
        }
        if let change, !["minor", "major", "none"].contains(change) {
            fields.fail(
                "version_change", .invalid,
                "is `minor` (finished users see only the new steps), `major` (everyone starts again) or `none` (texts only), got `\(change)`"
            )
        }
        if fields.has("steps"), fields.errors.isEmpty, stepItems.isEmpty {
            fields.fail("steps", .invalid, "a flow has at least one step")
        }
        if stepItems.count > 100 { fields.fail("steps", .outOfRange, "a flow has at most 100 steps") }
        try fields.check()
        base = try DraftRevision(base: baseName, service: service)
        let flows = OnboardingFlows(ruleSet: base.ruleSet)
        guard let flow = flows[id] else { throw FlowEditRoutes.unknown(id, flows) }
        self.flow = flow
        let names = flow.variants.map(\.name)
        let chosen = variantName ?? (names.count == 1 ? names[0] : nil)
        guard let chosen, let variant = flow.variant(named: chosen) else {
            var reader = FieldReader(["variant": variantName.map(JSON.string) ?? .null])
            reader.fail(
                "variant", variantName == nil ? .missing : .invalid,
                "flow `\(id)` has the variants \(names.map { "`\($0)`" }.joined(separator: ", ")): name the one to change"
            )
            throw APIError(fieldErrors: reader.errors)
        }
        self.variant = chosen
        let events = service.features.appEvents.map(\.event)
        if let startItems {
            var names: [String] = []
            var reader = FieldReader(["starts_on": .array(startItems)])
            for (index, item) in startItems.enumerated() {
                guard case .string(let name) = item, Identifier.isValid(name) else {
                    reader.fail("starts_on", at: String(index), .invalid, "names an event type (app_opened, …)")
                    continue
                }
                guard events.contains(where: { $0.type == name }) else {
                    let meant = closestMatch(to: name, in: events.map(\.type)).map { "; did you mean `\($0)`?" } ?? ""
                    reader.fail(
                        "starts_on", at: String(index), .invalid,
                        "names the event `\(name)`, which no feature declares the app sends\(meant)")
                    continue
                }
                if !names.contains(name) { names.append(name) }
            }
            guard reader.errors.isEmpty else { throw APIError(fieldErrors: reader.errors) }
            if names != (flow.startsOn ?? []) { startsOn = names }
        }
        let catalog = base.ruleSet.texts
        // A tooltip's text goes to the locale file that holds its key, else the locale's own.
        let localeFiles = LocaleFileEdit.files(in: base.files.files)
        flowPath = base.revisionPath(flow.location.file)
        var file = FlowFileEdit(base.files.files[flowPath] ?? "")
        var locales: [String: LocaleFileEdit] = [:]
        var errors: [FieldError] = []
        var newLines: [String] = []
        var ids: [String] = []
        let indent = variant.steps.first.map { file.dashIndent(atLine: $0.location.line) } ?? 4
        var textChanges: [String] = []
        for (index, item) in stepItems.enumerated() {
            let at = "/steps/\(index)"
            guard case .object(let object) = item else {
                errors.append(FieldError(.wrongType, at: at, "must be an object (a step)"))
                continue
            }
            var step = FieldReader(object, at: at)
            guard let stepID = try? step.identifier("id") else {
                errors += step.problems(allowingUnknown: true)
                continue
            }
            if ids.contains(stepID) {
                step.fail("id", .invalid, "step `\(stepID)` is listed twice")
                errors += step.errors
                continue
            }
            ids.append(stepID)
            // Issue 42: the editor's names are the app's (a tooltip's `placement`; `highlight` is
            // the app's `{shape, corner_radius}` object, so the shape alone is `highlight_shape`).
            step.renamed("position", to: "placement")
            step.renamed("highlight", to: "highlight_shape")
            let existing = variant.steps.first { $0.id == stepID }
            let tooltipKey = existing?.tooltip.key ?? "onboarding.\(flow.id).\(stepID).tooltip"
            var tooltip: [String: String] = [:]
            if let texts = try? step.optionalObject("tooltip") {
                for code in texts.keys.sorted() {
                    guard localeFiles[code] != nil else {
                        step.fail(
                            "tooltip", at: code, .invalid,
                            "there is no locale file for `\(code)`; the locales are \(catalog.codes.joined(separator: ", "))"
                        )
                        continue
                    }
                    guard case .string(let text)? = texts[code], !text.trimmingCharacters(in: .whitespaces).isEmpty,
                        text.count <= 500
                    else {
                        step.fail("tooltip", at: code, .invalid, "must be non-empty text of at most 500 characters")
                        continue
                    }
                    tooltip[code] = text
                }
                if existing == nil {
                    for code in catalog.codes where texts[code] == nil {
                        step.fail("tooltip", at: code, .missing, "a new step's tooltip needs its text in \(code)")
                    }
                }
            } else if existing == nil, step.errors.isEmpty {
                step.fail("tooltip", .missing, "a new step's tooltip: its text in each locale ({\"ru\": …, \"en\": …})")
            }
            if let existing {
                if existing.tooltip.key == nil, !tooltip.isEmpty {
                    step.fail(
                        "tooltip", .invalid,
                        "step `\(stepID)` has its tooltip written in place: edit it in the code editor")
                }
                let edit = KeptStepEdit(&step, existing: existing, events: events)
                errors += step.problems()
                newLines += edit.apply(to: file.lines(of: file.block(atLine: existing.location.line)))
                if !edit.fields.isEmpty { editedSteps.append(stepID) }
            } else {
                let new = Self.newStep(&step, id: stepID, key: tooltipKey, events: events)
                errors += step.problems()
                if let new { newLines += new.lines(indent: indent) }
            }
            for (code, text) in tooltip {
                let current = catalog.locales.first { $0.locale == code }?.texts[tooltipKey]?.message.source
                let place = base.ruleSet.textPlaces(tooltipKey)[code]?.file
                guard current != text, let path = LocaleFileEdit.file(among: localeFiles[code] ?? [], holding: place)
                else { continue }
                var edit = locales[path] ?? LocaleFileEdit(base.files.files[path] ?? "")
                edit.set(tooltipKey, text, limit: existing == nil && code == catalog.defaultLocale ? 90 : nil)
                locales[path] = edit
                stepLines[index] = tooltipKey
                if existing != nil { textChanges.append("\(stepID) (\(code))") }
                let sharing = flow.variants.filter { other in
                    other.name != chosen && other.steps.contains { $0.tooltip.key == tooltipKey }
                }
                if existing != nil, !sharing.isEmpty {
                    let names = sharing.map { "`\($0.name)`" }.joined(separator: ", ")
                    sharedTexts.append(
                        "The tooltip of `\(stepID)` (\(code)) is also shown in variant \(names): its new text shows there too."
                    )
                }
            }
        }
        steps = ids
        stepsChange = !stepItems.isEmpty && ids != variant.steps.map(\.id)
        let (minor, major) = FlowEditRoutes.nextVersions(flow.version)
        versionChange = change ?? (stepsChange ? "" : "none")
        if keeping, stepsChange, change == nil || change == "none" {
            errors.append(
                FieldError(
                    change == nil ? .missing : .invalid, at: "/version_change",
                    "the steps change: choose `minor` (finished users see only the new steps) or `major` (everyone starts again)"
                ))
        }
        guard errors.isEmpty else { throw APIError(fieldErrors: errors) }
        version = versionChange == "minor" ? minor : versionChange == "major" ? major : flow.version
        guard keeping else { return }
        if stepsChange || !editedSteps.isEmpty, let first = variant.steps.first, let last = variant.steps.last {
            let range =
                file.block(atLine: first.location.line)
                .lowerBound..<file.block(atLine: last.location.line)
                .upperBound
            file.replace(range, with: newLines)
        }
        if version != flow.version { file.setVersion(version) }
        if let startsOn { file.setStartsOn(startsOn) }
        if stepsChange || !editedSteps.isEmpty || startsOn != nil || version != flow.version {
            edited[flowPath] = file.text
        }
        for (path, edit) in locales { edited[path] = edit.text }
        if edited.isEmpty {
            throw APIError(
                422, "invalid_request",
                "the request changes nothing: the steps, their fields and texts, and `starts_on` are as they are",
                errors: [
                    [
                        "pointer": "/steps", "path": "/steps", "field": "steps", "code": "invalid",
                        "message": "changes nothing",
                    ]
                ])
        }
        var parts: [String] = []
        let added = ids.filter { id in !variant.steps.contains { $0.id == id } }
        let removed = variant.steps.map(\.id).filter { !ids.contains($0) }
        if !added.isEmpty { parts.append("adds " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removes " + removed.joined(separator: ", ")) }
        if stepsChange, added.isEmpty, removed.isEmpty { parts.append("reorders its steps") }
        if !editedSteps.isEmpty { parts.append("changes " + editedSteps.joined(separator: ", ")) }
        if !textChanges.isEmpty { parts.append("rewords " + textChanges.joined(separator: ", ")) }
        if let startsOn { parts.append("starts on " + startsOn.joined(separator: ", ")) }
        summary = "flow \(flow.id) \(version) (\(variant.name)): " + parts.joined(separator: "; ")
    }

    /// The draft's default message.
    private(set) var summary = ""

    /// The counts of `FlowImpact` for both version choices.
    func impact(_ service: any ServiceContext) throws(APIError) -> JSON {
        let histories: [String: OnboardingFlowProgress]
        do {
            histories = try service.store.onboardingHistories(flow: flow.key)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
        let (minor, major) = FlowEditRoutes.nextVersions(flow.version)
        var impact = FlowImpact(flow: flow, variant: variant, steps: steps, histories: histories)
        impact.count(edited: editedSteps, startsOn: startsOn, histories: histories)
        return impact.json(flow: flow, variant: variant, minor: minor, major: major)
    }

    /// `/steps/N/tooltip/LOCALE` of a diagnostic on a tooltip's line of a locale file, or
    /// `/steps` for one in the flow's document.
    func pointer(_ diagnostic: Diagnostic) -> String? {
        let file = diagnostic.location.file
        if file.hasSuffix(flowPath) { return "/steps" }
        for (path, text) in edited where path != flowPath && file.hasSuffix(path) {
            guard let key = LocaleFileEdit(text).key(atLine: diagnostic.location.line),
                let index = stepLines.first(where: { $0.value == key })?.key,
                let code = LocaleFileEdit.locale(of: text)
            else { return nil }
            return "/steps/\(index)/tooltip/\(code)"
        }
        return nil
    }

    /// A new step from its fields, or nil (its problems kept in `step`).
    private static func newStep(_ step: inout FieldReader, id: String, key: String, events: [AppEvent])
        -> NewFlowStep?
    {
        let target = try? step.string("target_element_id", maxLength: 200)
        let shapeName = (try? step.optionalString("highlight_shape")) ?? nil
        let positionName = (try? step.optionalString("placement")) ?? nil
        let canSkip = ((try? step.optionalBool("can_skip")) ?? nil) ?? true
        let shape = OnboardingStep.Shape(rawValue: shapeName ?? "rectangle")
        if shape == nil { step.fail("highlight_shape", .invalid, "is circle or rectangle, got `\(shapeName ?? "")`") }
        let position = OnboardingStep.TooltipPosition(rawValue: positionName ?? "auto")
        if position == nil { step.fail("placement", .invalid, "is above, below or auto, got `\(positionName ?? "")`") }
        let trigger = Self.trigger(in: &step, events: events)
        guard let target, let shape, let position, let trigger else { return nil }
        return NewFlowStep(
            id: id, target: target, shape: shape, position: position, tooltipKey: key, trigger: trigger,
            canSkip: canSkip)
    }

    /// The YAML of `step`'s `trigger` (its problems kept in `step`).
    static func trigger(in step: inout FieldReader, events: [AppEvent]) -> String? {
        guard let object = try? step.object("trigger") else { return nil }
        var reader = FieldReader(object, at: step.path(of: "trigger"))
        let trigger = Self.trigger(&reader, events: events)
        for problem in reader.problems() {
            step.fail(
                "trigger", at: String(problem.path.split(separator: "/").last ?? ""), problem.code, problem.problem)
        }
        return trigger
    }

    /// `{event: ui_tap, element_id}`, `{event: ui_swipe, direction}`, `{event: ui_*,
    /// element_id}` or `{timer: seconds}` as the YAML of a completion trigger; the event is one
    /// of `events` (the catalogue) that a step can wait for (it has a `field`).
    private static func trigger(_ reader: inout FieldReader, events: [AppEvent]) -> String? {
        if reader.has("timer") {
            guard let seconds = try? reader.number("timer") else { return nil }
            guard seconds >= 1, seconds <= 3_600 else {
                reader.fail("timer", .outOfRange, "is a number of seconds from 1 to 3600")
                return nil
            }
            return "{timer: \(JSON.number(seconds).compactText)}"
        }
        guard let event = try? reader.string("event", maxLength: 64) else { return nil }
        let waitable = events.filter { $0.field != nil }
        guard events.contains(where: { $0.type == event && $0.field != nil }) else {
            let meant = closestMatch(to: event, in: waitable.map(\.type)).map { "; did you mean `\($0)`?" } ?? ""
            reader.fail(
                "event", .invalid,
                "names an event the app sends (GET /v1/app-events lists them: ui_tap, ui_swipe, …), got `\(event)`\(meant)"
            )
            return nil
        }
        if event == "ui_swipe" {
            guard let direction = try? reader.string("direction") else { return nil }
            guard OnboardingDocumentKind.swipeDirections.contains(direction) else {
                reader.fail("direction", .invalid, "is left, right, up or down, got `\(direction)`")
                return nil
            }
            return "{swipe: \(direction)}"
        }
        guard let element = try? reader.string("element_id", maxLength: 200) else { return nil }
        let quoted = JSON.string(element).compactText
        switch event {
        case "ui_tap": return "{tap: \(quoted)}"
        case "ui_element_visible": return "{visible: \(quoted)}"
        default: return "{event: \(event), where: {element_id: \(quoted)}}"
        }
    }
}
