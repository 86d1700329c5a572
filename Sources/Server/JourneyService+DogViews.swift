import FeatureKit
import HTTP

extension JourneyService {
    /// A view of `dog`'s data, from this worker's cache while nothing it derives from changed:
    /// the dog's change counter in shared memory (every worker bumps it after storing the
    /// dog's events), commits by other processes (SQLite's data version), the dog's latest
    /// row, the revision and the quarantine; kept at most `--view-cache` seconds.
    public func dogView(dog: String, key: String, compute: () throws(APIError) -> HTTPResponse) throws(APIError)
        -> HTTPResponse
    {
        let now = configuration.clock()
        let ttl = configuration.viewCacheSeconds
        let revision = generation.ruleSet.revision
        // The standby's versions and data are its own: its views are kept apart.
        let connection = viewRead == nil ? database : viewConnection()
        let cacheKey = dog + "|" + key + (readsFromStandby ? "|standby" : "")
        var version: Int64 = 0
        var changes: UInt64 = 0
        var external: Int64 = 0
        if ttl > 0 {
            do {
                // The counter first: a commit it does not show yet moves the external version.
                changes = control.changes(of: dog)
                external = try externalVersion(of: connection)
                if var entry = viewCache.entry(cacheKey, revision: revision, now: now, ttl: ttl) {
                    if entry.changes == changes, entry.external == external { return entry.response }
                    version = try connection.dataVersion(dog: dog)
                    if entry.version == version, entry.changes == changes {
                        entry.external = external
                        viewCache.store(cacheKey, entry)
                        return entry.response
                    }
                } else {
                    version = try connection.dataVersion(dog: dog)
                }
            } catch {
                throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
            }
        }
        let response = try compute()
        if ttl > 0 {
            viewCache.store(
                cacheKey,
                ViewCache.Entry(
                    version: version, changes: changes, external: external, revision: revision, computedAt: now,
                    response: response))
        }
        return response
    }
}
