/// Who may call a route, declared with the route so that the service checks it in one place
/// (before the handler runs) instead of each handler checking for itself.
public enum RouteAccess: Sendable, Equatable {
    /// Anyone: liveness, readiness, the API description, the console's static files.
    case open
    /// An app user (a bearer token's `sub`) acting for themselves: each binding names a part of
    /// the request that must be that user or one of their dogs. An `admin` credential may call
    /// it too (the console reads any dog's screens).
    case user([UserBinding])
    /// A service credential with the scope (the push sender, the analytics exporter, the
    /// metrics scraper, an admin).
    case service(ServiceScope)

    /// A user route with no part naming a user (the list of challenges).
    public static var anyUser: RouteAccess { .user([]) }
}

/// A part of a request that names the user it acts for, or one of their dogs.
public enum UserBinding: Sendable, Equatable {
    /// The path's `{name}` is the user: another user's is `403`.
    case pathUser(String)
    /// The path's `{name}` is a dog of the user: another user's dog is `404`, like a dog that
    /// does not exist, so that dog ids cannot be probed.
    case pathDog(String)
    /// The JSON body's member `name` is the user (when it is a string): another user is `403`.
    case bodyUser(String)
    /// Every event in the body's array `array` has `user_id` the user: any other is `403`.
    case bodyEvents(String)
    /// The query parameter `name`, when given, is the user: another user is `403`.
    case queryUser(String)
}

/// What a service credential may do.
public enum ServiceScope: String, Sendable, CaseIterable {
    /// The push sender: reminders due across users, marking them sent.
    case reminders
    /// The analytics exporter.
    case analytics
    /// Scraping `/metrics`.
    case metrics
    /// The admin API: rules, revisions, the audit trail, experiments' reports, funnels
    /// (everything: the ``AdminRole/admin`` role).
    case admin
    /// The admin API with the ``AdminRole/viewer`` role: reading only.
    case viewer
    /// The admin API with the ``AdminRole/editor`` role: drafts, checks, previews.
    case editor
    /// The admin API with the ``AdminRole/publisher`` role: activating, approving, scheduling.
    case publisher

    /// The admin role this scope gives (nil: not an admin scope).
    public var adminRole: AdminRole? {
        switch self {
        case .admin: .admin
        case .viewer: .viewer
        case .editor: .editor
        case .publisher: .publisher
        case .reminders, .analytics, .metrics: nil
        }
    }
}

/// What a credential may do on the admin API, each role everything the one before may:
/// `viewer` reads; `editor` also checks drafts, keeps them and previews them; `publisher` also
/// activates, approves, schedules and rolls back; `admin` also reloads the folders and lifts
/// quarantines.
public enum AdminRole: Int, Sendable, CaseIterable, Comparable {
    case viewer, editor, publisher, admin

    public var name: String {
        switch self {
        case .viewer: "viewer"
        case .editor: "editor"
        case .publisher: "publisher"
        case .admin: "admin"
        }
    }

    public static func < (a: AdminRole, b: AdminRole) -> Bool { a.rawValue < b.rawValue }
}

extension Set where Element == ServiceScope {
    /// The highest admin role among these scopes (nil: none).
    public var adminRole: AdminRole? { compactMap(\.adminRole).max() }
}

/// Who a request comes from, once its credential is checked.
public enum Principal: Sendable, Equatable {
    /// An app user: a verified token's `sub`.
    case user(String)
    /// A service credential: its name (what the audit trail records) and scopes.
    case service(name: String, scopes: Set<ServiceScope>)

    /// The admin role of a service credential (nil: an app user, or no admin scope).
    public var adminRole: AdminRole? {
        if case .service(_, let scopes) = self { return scopes.adminRole }
        return nil
    }

    /// The user a user request acts for.
    public var user: String? {
        if case .user(let id) = self { return id }
        return nil
    }
}
