import Core

/// A check of another type that a block offers when its own can't be done now (the dog isn't
/// nearby): `check.fallback.check` in the catalog, e.g. a hands_on block whose fallback is a
/// self_screen. The app answers it with `check_answered` and `payload.fallback: true`; the
/// block's check step is then done through it, with its records.
enum FallbackCheck {
    /// The fallback check written in `check` (a block's check as written), if it has one.
    static func content(of check: JSON?) -> JSON? {
        guard case .object? = check?["fallback"]?["check"] else { return nil }
        return check?["fallback"]?["check"]
    }

    /// Its check type (its plugin), if it names one.
    static func type(of check: JSON?) -> String? {
        content(of: check)?["type"]?.stringValue
    }
}

extension JourneyMap.Block {
    /// The fallback check's content as written, if the block has one.
    var fallbackCheck: JSON? { FallbackCheck.content(of: content["check"]) }
    /// The fallback check's type, if the block has one.
    var fallbackCheckType: String? { FallbackCheck.type(of: content["check"]) }
}
