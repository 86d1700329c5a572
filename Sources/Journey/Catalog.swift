import Core
import JQ
import RuleEngine

/// The Dog Journey's content for one age range: branches of blocks, and the portrait metrics
/// with their insight texts. Loaded from a `catalog:` document in `Rules/journey/`.
public struct Catalog: Sendable {
    public var id: String
    public var title: String
    /// Age ranges whose dogs get this catalog (`4-8m`).
    public var ageRanges: [AgeRange]
    public var metrics: [Metric]
    public var branches: [Branch]
    public var location: SourceLocation
    /// The whole document as JSON (what a manifest refers to).
    public var json: JSON
    /// `json` as compact text, and its SHA-256: the content is kept once under this hash.
    public var text: String
    public var hash: String
    /// The document without the blocks' prose (preview, theory, check, reminder, note): the
    /// input of the `manifest` rule, which needs only the structure and the metric texts.
    public var outline: JSON
    /// Every text, with where it is written and its branch: for the wording rules.
    public var texts: [Text]
    /// The longest line of a block's preview, in characters (``previewLineLimit`` unless set).
    public var previewLineLimit: Int = Catalog.previewLineLimit

    public struct Metric: Sendable {
        public var key: String
        public var label: String
        /// Insight text by band: `low` (< 40), `mid` (40–69), `high` (≥ 70), when written in
        /// place (else they are locale texts).
        public var bands: [String: String]
        public var location: SourceLocation
    }

    public struct Branch: Sendable {
        public var id: String
        public var title: String
        public var blocks: [Block]
        public var location: SourceLocation
    }

    public struct Block: Sendable {
        public var id: String
        public var title: String
        /// The portrait metric the block serves.
        public var topic: String
        public var needs: [String]
        public var minutes: Int
        public var checkType: String
        /// The check as written (its plugin checks it).
        public var check: JSON
        public var actionType: String
        public var autoComplete: String?
        public var courseID: String?
        public var reminderBlock: String?
        public var location: SourceLocation
        public var checkLocation: SourceLocation
        public var actionLocation: SourceLocation
    }

    public struct Text: Sendable {
        public var text: String
        public var location: SourceLocation
        public var branch: String?
        public var block: String?
    }

    /// Every block, in path order.
    public var blocks: [Block] { branches.flatMap(\.blocks) }

    /// The block with id `id`.
    public func block(_ id: String) -> Block? {
        blocks.first { $0.id == id }
    }

    /// Whether a dog of `range` (or of `months` old) gets this catalog.
    public func fits(_ range: AgeRange) -> Bool {
        ageRanges.contains { $0.overlaps(range) }
    }

    /// How long a block takes, in minutes: a whole block in 3–5 minutes.
    public static let blockMinutes = 3...5
    /// The longest line of a block's three-line preview (`preview.learn`, `preview.why`,
    /// `action.label`), in characters as written, unless the catalog sets `preview_line_limit`.
    public static let previewLineLimit = 120
    /// What a catalog's `preview_line_limit` may be.
    public static let previewLineLimits = 40...400

    /// The actions a block can ask for.
    public static let actionTypes = [
        "save_weight", "add_vaccine", "start_course", "upload_photo", "record_observation",
    ]
}

/// An age range such as `4-8m`, `1-3y` or `7y+`, in months: `lower` ≤ age < `upper`.
public struct AgeRange: Sendable, Equatable {
    public var lower: Int
    public var upper: Int
    public var text: String

    /// Parses `4-8m`, `1-3y`, `7y+`; nil for anything else.
    public init?(_ text: String) {
        self.text = text
        let unit = text.hasSuffix("+") ? text.dropLast().last : text.last
        guard let unit, unit == "m" || unit == "y" else { return nil }
        let factor = unit == "y" ? 12 : 1
        if text.hasSuffix("+") {
            guard let low = Int(text.dropLast(2)) else { return nil }
            lower = low * factor
            upper = Int.max
        } else {
            let parts = text.dropLast().split(separator: "-")
            guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), low < high else { return nil }
            lower = low * factor
            upper = high * factor
        }
    }

    /// The one-month range a dog of `months` falls in.
    public init(months: Int) {
        lower = months
        upper = months + 1
        text = "\(months)m"
    }

    public func overlaps(_ other: AgeRange) -> Bool {
        lower < other.upper && other.lower < upper
    }
}
