import Core
import Engine
import FeatureKit
import HTTP
import Store

/// Views read from a standby (`--read-url`), never older than what they must show.
///
/// A *view* is a `GET` of an app user's route (today, the map, the journey, habits' day and
/// statistics, challenges, onboarding, the profile): those handlers only read the store (an
/// experiment's assignment, kept on first use, is written by the evaluator through the
/// primary). The view reads from the standby when the standby's replay position
/// (`pg_last_wal_replay_lsn()`) has passed the view's floor, the highest of:
/// - the primary's WAL position when this worker adopted the revision it serves: everything
///   the primary held at the activation (and before) is on the standby, so a view under the
///   new revision never reads the data of an older one;
/// - for the view's user and dog (its path, its `user` query, the token's user), the primary's
///   WAL position after this service last wrote for them (kept in shared memory, so every
///   worker knows): a user's own write shows in their next view, whichever worker answers it.
/// Else, or when the standby fails, the primary answers (a view that failed on the standby
/// is answered again by the primary: views change nothing).
extension JourneyService {
    /// A view being answered: the floors it must see, then the connection chosen.
    struct ViewRead {
        var keys: [String]
        var connection: (any StoreConnection)?
        var source = ControlBlock.ViewSource.primaryBehind
    }

    /// A request's route and response.
    typealias Answer = (route: Router<JourneyService>.Route?, response: HTTPResponse)

    /// Before a request is routed: whether it is a view, and the keys of its floors.
    func beginViewRead(_ request: HTTPRequest) {
        viewRead = nil
        guard readReplica != nil, request.method == "GET" || request.method == "HEAD",
            case .success(let match) = router.match(method: request.method, path: request.path),
            case .user(let bindings) = match.route.access
        else { return }
        viewRead = ViewRead(keys: Self.floorKeys(bindings, match.parameters, request))
    }

    /// The store a handler reads from: for a view, the standby when it has replayed the view's
    /// floor (decided on first use, once the caller is known), else the primary.
    func viewConnection() -> any StoreConnection {
        guard var view = viewRead, let replica = readReplica else { return database }
        if let connection = view.connection { return connection }
        if let user = principal?.user { view.keys.append("u:" + user) }
        if let floor = viewFloor(view.keys), let standby = replica.store(replayedPast: floor) {
            view.connection = standby
            view.source = .standby
        } else {
            view.connection = database
            view.source = replica.isDown ? .primaryStandbyDown : .primaryBehind
        }
        viewRead = view
        return view.connection ?? database
    }

    /// Whether the view being answered reads from the standby.
    var readsFromStandby: Bool { viewRead?.source == .standby && viewRead?.connection != nil }

    /// The highest floor of `keys` and of the revision served; nil when the primary's position
    /// cannot be read (the primary answers).
    private func viewFloor(_ keys: [String]) -> UInt64? {
        if revisionFloor == nil { revisionFloor = try? ReadReplica.writePosition(of: database) }
        guard let revisionFloor else { return nil }
        return keys.reduce(revisionFloor) { max($0, control.readFloor($1)) }
    }

    /// After a view: counts who answered it. A view the standby failed (5xx) is answered again
    /// by the primary, and the standby is left alone a while when it does not answer a ping (when
    /// it does, its replay position is read again: the ping may have reached another server).
    func finishViewRead(_ request: HTTPRequest, _ answered: Answer) -> Answer {
        guard let view = viewRead else { return answered }
        var answered = answered
        if readsFromStandby, answered.response.status >= 500, let replica = readReplica {
            do {
                try view.connection?.ping()
                replica.forgetPosition()
            } catch {
                replica.failed(error)
            }
            viewRead = ViewRead(keys: view.keys, connection: database, source: .primaryStandbyDown)
            principal = nil
            answered = router.handle(request, in: self)
        }
        if answered.response.status < 500, viewRead?.connection != nil, let source = viewRead?.source {
            control.countView(source)
        }
        viewRead = nil
        return answered
    }

    /// After a request that may have written for its user or dog (not a view): raises their
    /// floors to the primary's position now, past the request's commit.
    func recordWriteFloors(_ request: HTTPRequest, route: Router<JourneyService>.Route?) {
        guard readReplica != nil, request.method != "GET", request.method != "HEAD", let route,
            case .user(let bindings) = route.access,
            case .success(let match) = router.match(method: request.method, path: request.path)
        else { return }
        var keys = Self.floorKeys(bindings, match.parameters, request)
        if let user = principal?.user { keys.append("u:" + user) }
        raiseFloors(keys)
    }

    /// After events were stored: raises their users' and dogs' floors.
    func recordWriteFloors(events: [JSON], results: [IngestResult]) {
        guard readReplica != nil else { return }
        var keys: Set<String> = []
        for (event, result) in zip(events, results) where result.status == .accepted {
            if let user = event["user_id"]?.stringValue { keys.insert("u:" + user) }
            if let dog = event["dog_id"]?.stringValue { keys.insert("d:" + dog) }
        }
        raiseFloors(Array(keys))
    }

    private func raiseFloors(_ keys: [String]) {
        guard !keys.isEmpty else { return }
        // Unknown position (the primary is gone): the next write raises them; a standby that
        // replays a promoted primary's WAL is a new timeline, read again from zero.
        guard let position = try? ReadReplica.writePosition(of: database) else { return }
        for key in keys { control.raiseReadFloor(key, to: position) }
    }

    /// `u:USER` and `d:DOG` for the parts of a request that name its user or dog.
    static func floorKeys(_ bindings: [UserBinding], _ parameters: [String: String], _ request: HTTPRequest)
        -> [String]
    {
        bindings.compactMap { binding in
            switch binding {
            case .pathUser(let name): parameters[name].map { "u:" + $0 }
            case .pathDog(let name): parameters[name].map { "d:" + $0 }
            case .queryUser(let name): request.query(name).map { "u:" + $0 }
            case .bodyUser, .bodyEvents: nil
            }
        }
    }

    /// The external version of `connection` (the primary's or the standby's), read at most
    /// every 50 ms.
    func externalVersion(of connection: any StoreConnection) throws -> Int64 {
        guard let replica = readReplica, connection !== database else { return try externalVersion() }
        let now = ContinuousClock.now
        if let (value, at) = replica.externalVersionRead, now - at < .milliseconds(50) { return value }
        let value = try connection.externalVersion()
        replica.externalVersionRead = (value, now)
        return value
    }
}
