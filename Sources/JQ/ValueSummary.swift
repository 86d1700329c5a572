/// A value described in one line, for traces and explanations: its kind and size, and an
/// object's first keys or an array's length (`object, 13.2 KiB: dog, branches, blocks`).
public enum ValueSummary {
    public static func describe(_ value: JV) -> String {
        let text = value.compactText
        var summary = "\(value.kind.rawValue), \(ByteCount.format(text.utf8.count))"
        if value.kind == .object, case .object(let object)? = try? value.json() {
            let keys = object.keys
            summary += ": " + keys.prefix(8).joined(separator: ", ") + (keys.count > 8 ? ", …" : "")
        } else if value.kind == .array {
            summary += ", \(value.count) elements"
        }
        return summary
    }
}
