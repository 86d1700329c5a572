/// A rule's text for the plain C loop with `now` pinned to the engine side's time, so both
/// sides do the same work whatever the date the benchmark runs on (libjq's own `now` is the
/// clock: a 30-day window would find other records tomorrow).
///
/// The definition goes after the program's leading `include`/`import` directives (and the
/// comments and blank lines among them), where jq accepts definitions.
func pinningNow(_ source: String, at now: Double) -> String {
    insertingAfterDirectives("def now: \(now);", into: source)
}

/// `source` with `line` inserted after its leading `include`/`import` directives (and the
/// comments and blank lines among them): where jq accepts definitions and bindings.
func insertingAfterDirectives(_ line: String, into source: String) -> String {
    var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var index = 0
    while index < lines.count {
        let text = lines[index].drop { $0 == " " }
        guard text.isEmpty || text.hasPrefix("#") || text.hasPrefix("include ") || text.hasPrefix("import ") else {
            break
        }
        index += 1
    }
    lines.insert(line, at: index)
    return lines.joined(separator: "\n")
}
