import Core
import FeatureKit
import Foundation
import RevisionStore
import RuleEngine
import Store

/// New parameter values over a base revision: each value checked against its declaration (as
/// `journey check` checks the values file), then the base's files with `Rules/params.yaml`
/// edited line by line. Problems point at the value that caused them (`/values/NAME`).
struct ParameterDraft {
    /// The values file as a revision holds it.
    static let valuesPath = "Rules/" + ParameterValuesFile.path

    /// The base revision's id.
    var base: String
    /// The files with the new values.
    var files: RevisionFiles
    /// What changed: name, the value before and after (null: the default).
    var changes: [(name: String, from: JSON, to: JSON)]

    /// Reads `values` (`owner.name` → a value, or null for the default) over `base` (`active`
    /// or a kept revision's id).
    init(values: JSONObject, base: String, service: any ServiceContext) throws(APIError) {
        let draftBase = try DraftRevision(base: base, service: service)
        let (baseID, baseFiles, ruleSet) = (draftBase.id, draftBase.files, draftBase.ruleSet)

        var problems: [JSON] = []
        var file = ParameterValuesFile(baseFiles.files[Self.valuesPath])
        var changes: [(String, JSON, JSON)] = []
        for (name, json) in values {
            guard let parameter = ruleSet.parameter(name) else {
                var message = "no parameter `\(name)`"
                if let suggestion = closestMatch(to: name, in: ruleSet.parameters.map(\.name)) {
                    message += "; did you mean `\(suggestion)`?"
                }
                problems.append(Self.problem(name, "unknown_param", message))
                continue
            }
            var value: ParameterValue?
            if json != .null {
                switch parameter.declaration.value(from: json) {
                case .success(let parsed): value = parsed
                case .failure(let problem):
                    problems.append(
                        Self.problem(name, problem.code.rawValue, "parameter `\(name)` \(problem.message)"))
                    continue
                }
            }
            do {
                try file.set(parameter.declaration, to: value)
            } catch {
                problems.append(Self.problem(name, "invalid_param_values", error.description))
                continue
            }
            changes.append((name, parameter.isDefault ? .null : parameter.value.json, value?.json ?? .null))
        }
        guard problems.isEmpty else {
            throw APIError(
                422, "invalid_params",
                problems.count == 1
                    ? problems[0]["message"]?.stringValue ?? "" : "\(problems.count) values are refused",
                errors: problems)
        }
        var edited = baseFiles.files
        edited[Self.valuesPath] = file.text
        do {
            files = try RevisionFiles(edited)
        } catch {
            throw APIError(422, error.code, "the files cannot be a revision: \(error.description)")
        }
        self.base = baseID
        self.changes = changes.sorted { $0.0 < $1.0 }.map { (name: $0.0, from: $0.1, to: $0.2) }
    }

    /// The rule set of a revision: the one served when it is that one, else loaded.
    static func ruleSet(of files: RevisionFiles, id: String, service: any ServiceContext) throws(APIError) -> RuleSet {
        if service.ruleSet.revision == id { return service.ruleSet }
        var report = GateReport(revision: id, parent: nil)
        guard let loaded = RevisionGates(engine: service.features).load(files, into: &report) else {
            throw APIError(
                422, "revision_does_not_load", "revision \(id.prefix(12)) does not load: \(report.summary)",
                errors: report.diagnostics.map(\.json))
        }
        return loaded.ruleSet
    }

    /// Each diagnostic as JSON, with `pointer` (`/values/NAME`) when it is about a value of the
    /// values file.
    func errors(_ diagnostics: [Diagnostic]) -> [JSON] { DraftRevision.pointed(diagnostics, pointer) }

    /// `/values/NAME` of a diagnostic on a value's line of the values file.
    func pointer(_ diagnostic: Diagnostic) -> String? {
        guard diagnostic.location.file == Self.valuesPath else { return nil }
        return ParameterValuesFile(files.files[Self.valuesPath]).name(atLine: diagnostic.location.line).map(
            Self.pointer)
    }

    /// `changes` as JSON: `[{name, from, to}]`, null for a default.
    var changesJSON: JSON {
        .array(changes.map { ["name": .string($0.name), "from": $0.from, "to": $0.to] })
    }

    /// The JSON pointer (RFC 6901) of a value in the request: `/values/recommendation.by_branch_prefers`.
    static func pointer(_ name: String) -> String {
        "/values/" + name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// A refused value: its pointer, its field (as other refusals name fields), code and message.
    private static func problem(_ name: String, _ code: String, _ message: String) -> JSON {
        [
            "pointer": .string(pointer(name)), "field": .string("values." + name), "code": .string(code),
            "message": .string(message),
        ]
    }
}
