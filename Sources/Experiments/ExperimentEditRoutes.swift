import Core
import FeatureKit
import HTTP
import Revisions
import RuleEngine
import Store

/// The admin API that changes experiments without editing YAML: list them with their state at
/// a glance, create or change one (variations, weights, coverage, start and stop, dates, a
/// reassignment) and conclude one (ship a winner). Each change is a draft revision (kept, not
/// active) of the `experiments:` document, edited line by line; it is previewed, diffed and
/// activated with the revision routes like any other.
enum ExperimentEditRoutes {
    static let routes: [FeatureRoute] = [
        FeatureRoute("GET", "/v1/experiments", admin: true, list),
        FeatureRoute("PUT", "/v1/experiments/{experiment}", admin: true, role: .editor, put),
        FeatureRoute("POST", "/v1/experiments/{experiment}/conclude", admin: true, role: .editor, conclude),
    ]

    /// The document a new experiment goes to when the rule set has none.
    static let defaultFile = "Rules/experiments.yaml"

    /// Every experiment served: its status, variations with weights and exposed users, coverage,
    /// dates, bucket version, winner, the rules that use it, and the sample-ratio check.
    static func list(_ service: any ServiceContext, _: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let now = service.now()
        let ruleSet = service.ruleSet
        var items: [JSON] = []
        for experiment in ExperimentCatalog(ruleSet: ruleSet).experiments {
            let report: ExperimentReport
            do {
                report = try ExperimentReport(
                    experiment: experiment, store: service.store, evaluator: service.evaluator, now: now)
            } catch {
                throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
            }
            guard case .object(var object) = experiment.json else { continue }
            object["status"] = .string(status(of: experiment, at: now))
            object["exposed_users"] = .number(Double(report.exposedUsers))
            let users = Dictionary(report.variations.map { ($0.variation, $0.users) }, uniquingKeysWith: +)
            if case .array(let variations)? = object["variations"] {
                object["variations"] = .array(
                    variations.map { variation in
                        guard case .object(var entry) = variation, let name = entry["name"]?.stringValue else {
                            return variation
                        }
                        entry["users"] = .number(Double(users[name] ?? 0))
                        return .object(entry)
                    })
            }
            object["sample_ratio"] = [
                "status": .string(report.sampleRatio.status.rawValue), "p_value": .number(report.sampleRatio.pValue),
            ]
            object["used_by"] = .array(ruleSet.rules.filter { $0.experiment == experiment.key }.map { .string($0.id) })
            items.append(.object(object))
        }
        return .json(["revision": .string(ruleSet.revision), "experiments": .array(items)])
    }

    /// `running`, `scheduled`, `ended`, `stopped` or `concluded`.
    static func status(of experiment: Experiment, at now: Double) -> String {
        if experiment.winner != nil { return "concluded" }
        switch experiment.inactiveReason(at: now) {
        case .inactive?: return "stopped"
        case .notStarted?: return "scheduled"
        case .ended?: return "ended"
        default: return "running"
        }
    }

    /// `{description?, variation_names?, weights?, coverage?, active?, starts_at?, ends_at?,
    /// reassign?, hash_attribute?, message?, base?}`: the experiment created (it needs
    /// `variation_names`; the old `variations` is refused, naming it) or changed, as a draft revision; `consequences` says in plain words what
    /// the change does to the users in it. 422 names each refused field by its pointer.
    static func put(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let key = try parameters.require("experiment")
        var fields = try RequestBody.fields(request)
        let (message, baseName) = readCommon(&fields)
        let base = try DraftRevision(base: baseName, service: service)
        let before = ExperimentCatalog(ruleSet: base.ruleSet)[key]
        var after =
            before
            ?? Experiment(
                key: key, variations: [], coverage: 1, hashAttribute: "user_id", hashVersion: 2, seed: key,
                active: true, bucketVersion: 1, location: SourceLocation(file: defaultFile, line: 0, column: 0))
        var written: [(String, String?)] = []
        ExperimentFields.read(&fields, into: &after, isNew: before == nil, written: &written)
        if let before, before.winner != nil, !written.isEmpty, !written.contains(where: { $0.0 == "winner" }) {
            written.append(("winner", nil))
            after.winner = nil
        }
        try fields.check()
        if written.isEmpty {
            throw APIError(
                422, "invalid_request", "the request changes nothing: give at least one field to set",
                errors: [["pointer": "", "field": "", "code": "invalid", "message": "changes nothing"]])
        }
        return try keep(
            key: key, before: before, after: after, written: written, message: message, base: base,
            request: request, service: service)
    }

    /// `{winner, message?, base?}`: the experiment concluded — everyone gets `winner`, nobody is
    /// assigned or exposed any more — as a draft revision.
    static func conclude(_ service: any ServiceContext, _ request: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let key = try parameters.require("experiment")
        var fields = try RequestBody.fields(request)
        let winner = (try? fields.identifier("winner")) ?? ""
        let (message, baseName) = readCommon(&fields)
        try fields.check()
        let base = try DraftRevision(base: baseName, service: service)
        let catalog = ExperimentCatalog(ruleSet: base.ruleSet)
        guard let before = catalog[key] else { throw APIError.notFound("unknown_experiment", catalog.unknown(key)) }
        guard before.variations.contains(winner) else {
            var reader = FieldReader(["winner": .string(winner)])
            _ = reader.member("winner")
            reader.fail(
                "winner", .invalid,
                "must be one of the variations of `\(key)` (\(before.variations.joined(separator: ", "))), got `\(winner)`"
            )
            throw APIError(fieldErrors: reader.errors)
        }
        var after = before
        after.winner = winner
        after.active = false
        return try keep(
            key: key, before: before, after: after, written: [("winner", winner), ("active", "false")],
            message: message ?? "conclude experiment \(key): ship \(winner) to everyone", base: base, request: request,
            service: service)
    }

    // MARK: Helpers

    private static func readCommon(_ fields: inout FieldReader) -> (message: String?, base: String) {
        let message = (try? fields.optionalString("message", maxLength: 2_000)) ?? nil
        let base = ((try? fields.optionalIdentifier("base")) ?? nil) ?? "active"
        return (message, base)
    }

    /// Writes `written` into the experiment's document and keeps the draft.
    private static func keep(
        key: String, before: Experiment?, after: Experiment, written: [(String, String?)], message: String?,
        base: DraftRevision, request: HTTPRequest, service: any ServiceContext
    ) throws(APIError) -> HTTPResponse {
        let path: String
        var text: String
        var edit: ExperimentFileEdit?
        if let before {
            path = base.revisionPath(before.location.file)
            var file = ExperimentFileEdit(
                base.files.files[path] ?? "", line: before.location.line, column: before.location.column)
            for (name, value) in written { file.set(name, value) }
            text = file.text
            edit = file
        } else {
            path =
                ExperimentCatalog(ruleSet: base.ruleSet).experiments.first.map { base.revisionPath($0.location.file) }
                ?? defaultFile
            let existing = base.files.files[path] ?? "experiments:\n"
            let fields = [("key", key)] + written.compactMap { name, value in value.map { (name, $0) } }
            text = ExperimentFileEdit.appending(to: existing, fields: fields)
            let start = text.components(separatedBy: "\n").lastIndex { $0.hasPrefix("  - key: ") } ?? 0
            edit = ExperimentFileEdit(text, line: start + 1, column: 5)
        }
        let change = ExperimentChange(before: before, after: after)
        let summary = written.map { "\($0.0) = \($0.1 ?? "(removed)")" }.joined(separator: ", ")
        return try base.keep(
            [path: text], message: message ?? "experiment \(key): \(summary)", request: request, service: service,
            extra: [
                "experiment": .string(key), "created": .bool(before == nil), "file": .string(path),
                "consequences": .array(change.consequences.map(JSON.string)),
            ],
            pointer: { diagnostic in
                if diagnostic.code == "experiment_mismatch", written.contains(where: { $0.0 == "variations" }) {
                    return "/variation_names"
                }
                guard base.revisionPath(diagnostic.location.file) == path || diagnostic.location.file.hasSuffix(path),
                    let field = edit?.field(atLine: diagnostic.location.line),
                    written.contains(where: { $0.0 == field })
                else { return nil }
                return "/" + field
            })
    }
}
