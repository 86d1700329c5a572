import Core

/// A gate report as a revision stored it, read under today's names: reports kept before the
/// names were made one per concept (issue 42) said `rules` for the rule count (now
/// `rule_count`; `rules` is a decision's list) and `notes` for a diagnostic's related places
/// (now `related_notes`; `notes` are a dog's).
public enum StoredGateReport {
    public static func current(_ gates: JSON) -> JSON {
        guard case .object(let report) = gates else { return gates }
        var current = renaming("rules", to: "rule_count", in: report)
        if case .array(let diagnostics)? = current["diagnostics"] {
            current["diagnostics"] = .array(
                diagnostics.map { diagnostic in
                    guard case .object(let object) = diagnostic else { return diagnostic }
                    return .object(renaming("notes", to: "related_notes", in: object))
                })
        }
        return .object(current)
    }

    /// `object` with its member `old` named `new`, in the same place (unless `new` is there).
    static func renaming(_ old: String, to new: String, in object: JSONObject) -> JSONObject {
        guard object[new] == nil, object[old] != nil else { return object }
        return JSONObject(object.keys.map { ($0 == old ? new : $0, object[$0] ?? .null) })
    }
}
