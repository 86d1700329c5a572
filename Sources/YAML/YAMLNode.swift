/// A position in a YAML file: 1-based line and column.
public struct YAMLMark: Sendable, Equatable, Comparable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: YAMLMark, rhs: YAMLMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// One node of a parsed YAML document, with where it starts and ends in the file.
public struct YAMLNode: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    public var content: Content
    /// Where the node starts: for a block scalar (`|`, `>`), the indicator.
    public var start: YAMLMark
    public var end: YAMLMark
    /// An explicit tag such as `tag:yaml.org,2002:str` (`!!str`), when one was written.
    public var tag: String?

    public init(content: Content, start: YAMLMark, end: YAMLMark, tag: String? = nil) {
        self.content = content
        self.start = start
        self.end = end
        self.tag = tag
    }

    /// The scalar, when this node is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let s) = content { return s }
        return nil
    }

    /// The pairs, when this node is a mapping.
    public var pairs: [YAMLPair]? {
        if case .mapping(let p) = content { return p }
        return nil
    }

    /// The items, when this node is a sequence.
    public var items: [YAMLNode]? {
        if case .sequence(let i) = content { return i }
        return nil
    }

    /// `scalar`, `sequence` or `mapping`: for messages.
    public var kindName: String {
        switch content {
        case .scalar: "scalar"
        case .sequence: "list"
        case .mapping: "mapping"
        }
    }

    /// The value of the first pair whose key is the scalar `key`.
    public subscript(key: String) -> YAMLNode? {
        pairs?.first { $0.key.scalar?.value == key }?.value
    }
}

/// A scalar's text and how it was written.
public struct YAMLScalar: Sendable, Equatable {
    public enum Style: Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted
        /// `|`: lines kept.
        case literal
        /// `>`: lines folded.
        case folded
    }

    public var value: String
    public var style: Style

    public init(_ value: String, style: Style = .plain) {
        self.value = value
        self.style = style
    }

    /// Whether the scalar is a block scalar (`|` or `>`), whose content starts on the next line.
    public var isBlock: Bool { style == .literal || style == .folded }
}

/// A key and its value in a mapping.
public struct YAMLPair: Sendable, Equatable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A YAML file that could not be read, with where.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var mark: YAMLMark

    public init(_ message: String, at mark: YAMLMark) {
        self.message = message
        self.mark = mark
    }

    public var description: String { "\(mark.line):\(mark.column): \(message)" }
}
