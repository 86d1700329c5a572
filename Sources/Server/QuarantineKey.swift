import FeatureKit

/// Whose input a request's rule evaluations are for, the key a rule that runs away on them is
/// quarantined under: the dog the route names, else the user it names, else the token's user.
/// Nil (no dog, no user): each input is keyed by its own SHA-256.
enum QuarantineKey {
    static func of(parameters: [String: String], principal: Principal?) -> String? {
        if let dog = parameters["dog_id"] { return "dog:" + dog }
        if let user = parameters["user_id"] { return "user:" + user }
        if let user = principal?.user { return "user:" + user }
        return nil
    }
}
