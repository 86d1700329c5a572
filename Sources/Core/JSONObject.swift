/// The members of a JSON object, in insertion order (the order jq keeps and prints).
///
/// Setting an existing key replaces its value in place, as `jv_object_set` does. Lookups are
/// linear for small objects and go through a hash index once an object grows past a few keys.
public struct JSONObject: Sendable {
    public typealias Member = (key: String, value: JSON)

    private var members: [Member] = []
    /// key → position in `members`; built only for objects larger than `indexThreshold`.
    private var index: [String: Int]? = nil
    private static let indexThreshold = 12

    /// An empty object.
    public init() {}

    /// An object from key–value pairs in order; a repeated key keeps its first position and last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSON) {
        for (key, value) in pairs { self[key] = value }
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in insertion order.
    public var keys: [String] { members.map(\.key) }

    /// The member values in insertion order.
    public var values: [JSON] { members.map(\.value) }

    /// The value for `key`; setting nil removes the member.
    public subscript(key: String) -> JSON? {
        get {
            position(of: key).map { members[$0].value }
        }
        set {
            if let newValue {
                if let at = position(of: key) {
                    members[at].value = newValue
                } else {
                    members.append((key, newValue))
                    if index != nil {
                        index![key] = members.count - 1
                    } else if members.count > Self.indexThreshold {
                        rebuildIndex()
                    }
                }
            } else if let at = position(of: key) {
                members.remove(at: at)
                if index != nil { rebuildIndex() }
            }
        }
    }

    /// Appends a member whose key is known not to be present (e.g. read from a jq object,
    /// whose keys are unique), skipping the duplicate check.
    package mutating func appendUnique(_ key: String, _ value: JSON) {
        members.append((key, value))
        if index != nil {
            index![key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Reserves room for `count` members.
    package mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        var built: [String: Int] = [:]
        built.reserveCapacity(members.count)
        for (i, member) in members.enumerated() { built[member.key] = i }
        index = built
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }
}

extension JSONObject: Hashable {
    /// Objects are equal when they have the same keys with equal values, in any order (jq's `==`).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.members {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-member hashes commutatively.
        var combined = 0
        for (key, value) in members {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }
}
