import CYAML

/// Parses YAML text with libyaml into ``YAMLNode`` trees that remember positions.
public enum YAMLParser {
    /// Every document of `text`.
    /// - Throws: ``YAMLError`` with libyaml's problem, its position, and a hint for tabs.
    public static func parse(_ text: String) throws(YAMLError) -> [YAMLNode] {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { return [] }
        let result = bytes.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(YAMLError) in try parse(buffer: buffer, text: text) }
        }
        return try result.get()
    }

    private static func parse(buffer: UnsafeMutableBufferPointer<UInt8>, text: String) throws(YAMLError) -> [YAMLNode] {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLError("libyaml could not allocate a parser", at: YAMLMark(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        // The parser reads `buffer` in place; it outlives every call below.
        yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
        var builder = TreeBuilder()
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(&parser, &event) == 1 else {
                throw error(of: parser, text: text)
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { break }
            try builder.handle(event)
        }
        return builder.documents
    }

    private static func error(of parser: yaml_parser_t, text: String) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
        let mark = YAMLMark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
        var message = problem
        if let context = parser.context.map({ String(cString: $0) }) {
            message += " (\(context) at line \(parser.context_mark.line + 1), column \(parser.context_mark.column + 1))"
        }
        let offset = Int(parser.problem_mark.index)
        let utf8 = Array(text.utf8)
        if offset < utf8.count, utf8[offset] == 0x09 || problem.contains("tab") {
            message += "; tabs cannot indent YAML, use spaces"
        }
        return YAMLError(message, at: mark)
    }
}

/// Assembles nodes from libyaml's events.
private struct TreeBuilder {
    private enum Frame {
        case sequence(start: YAMLMark, tag: String?, anchor: String?, items: [YAMLNode])
        case mapping(start: YAMLMark, tag: String?, anchor: String?, pairs: [YAMLPair], key: YAMLNode?)
    }

    var documents: [YAMLNode] = []
    private var stack: [Frame] = []
    private var anchors: [String: YAMLNode] = [:]

    private static func mark(_ mark: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
    }

    mutating func handle(_ event: yaml_event_t) throws(YAMLError) {
        let start = Self.mark(event.start_mark)
        let end = Self.mark(event.end_mark)
        switch event.type {
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let value: String
            if let pointer = data.value, data.length > 0 {
                value = String(decoding: UnsafeBufferPointer(start: pointer, count: data.length), as: UTF8.self)
            } else {
                value = ""
            }
            let style: YAMLScalar.Style =
                switch data.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
            let node = YAMLNode(
                content: .scalar(YAMLScalar(value, style: style)), start: start, end: end, tag: Self.string(data.tag))
            if let anchor = Self.string(data.anchor) { anchors[anchor] = node }
            add(node)
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor) ?? ""
            guard var node = anchors[name] else {
                throw YAMLError("unknown alias *\(name)", at: start)
            }
            node.start = start
            node.end = end
            add(node)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            stack.append(
                .sequence(start: start, tag: Self.string(data.tag), anchor: Self.string(data.anchor), items: []))
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            stack.append(
                .mapping(
                    start: start, tag: Self.string(data.tag), anchor: Self.string(data.anchor), pairs: [], key: nil))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return }
            let node: YAMLNode
            let anchor: String?
            switch frame {
            case .sequence(let s, let tag, let a, let items):
                node = YAMLNode(content: .sequence(items), start: s, end: end, tag: tag)
                anchor = a
            case .mapping(let s, let tag, let a, let pairs, _):
                node = YAMLNode(content: .mapping(pairs), start: s, end: end, tag: tag)
                anchor = a
            }
            if let anchor { anchors[anchor] = node }
            add(node)
        default:
            break  // stream and document boundaries
        }
    }

    private mutating func add(_ node: YAMLNode) {
        guard let top = stack.popLast() else {
            documents.append(node)
            anchors = [:]
            return
        }
        switch top {
        case .sequence(let start, let tag, let anchor, var items):
            items.append(node)
            stack.append(.sequence(start: start, tag: tag, anchor: anchor, items: items))
        case .mapping(let start, let tag, let anchor, var pairs, let key):
            if let key {
                pairs.append(YAMLPair(key: key, value: node))
                stack.append(.mapping(start: start, tag: tag, anchor: anchor, pairs: pairs, key: nil))
            } else {
                stack.append(.mapping(start: start, tag: tag, anchor: anchor, pairs: pairs, key: node))
            }
        }
    }
}
