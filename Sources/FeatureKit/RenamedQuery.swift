import HTTP

extension HTTPRequest {
    /// Refuses `old`, a query parameter's former name, telling the sender to send `new` instead
    /// (`422 invalid_request`, its entry `{field: old, in: query, code: invalid}`), as a renamed
    /// body field is refused: a renamed parameter is never read silently nor ignored as unknown.
    public func refuseRenamedQuery(_ old: String, to new: String) throws(APIError) {
        guard query(old) != nil else { return }
        let problem = "was renamed: send `\(new)` instead"
        throw APIError(
            422, "invalid_request", "the query parameter `\(old)` \(problem)",
            errors: [APIError.parameterEntry(old, .invalid, problem, in: "query")])
    }
}
