import Core

/// A type of effect as rules write it (`{type: challenge_progress, …}`): how an effect object
/// of this type is read, or who alone makes it.
public struct EffectType: Sendable {
    /// Reads an effect object's fields (after `type`) for `event`, made by a rule of revision
    /// `ruleRevision`; every field is checked (``Core/FieldReader/finish()``). A problem is
    /// the field's, and becomes an ``EffectDecodingError`` naming the effect's type.
    public typealias Decode =
        @Sendable (inout FieldReader, _ event: Event, _ ruleRevision: String) throws(FieldError) -> Effect

    public var name: String
    /// Nil when rules may not produce it.
    public var decode: Decode?
    /// Who makes it when rules may not (`the Dog Journey`), for the refusal.
    public var madeBy: String

    /// An effect type rules may produce.
    public init(_ name: String, decode: @escaping Decode) {
        self.name = name
        self.decode = decode
        self.madeBy = ""
    }

    /// An effect type only `madeBy` makes.
    public init(_ name: String, madeBy: String) {
        self.name = name
        self.decode = nil
        self.madeBy = madeBy
    }
}

/// The effect types one engine knows, by name: the engine's own and every feature's.
public struct EffectTypes: Sendable {
    public let all: [EffectType]
    private let byName: [String: EffectType]

    public init(_ types: [EffectType]) {
        all = types
        byName = Dictionary(types.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func named(_ name: String) -> EffectType? { byName[name] }

    /// The engine's own: records, rewards, reminders and analytics (from rules), registration.
    public static let engine = EffectTypes(Effect.engineTypes)
}
