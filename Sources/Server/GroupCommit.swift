import Core
import Engine
import FeatureKit
import HTTP

/// A `POST /v1/events` batch admitted (parsed, authorized, within its rate) and waiting for the
/// next group commit.
struct PendingIngest {
    var request: HTTPRequest
    var events: [JSON]
    var principal: Principal?
    var started: ContinuousClock.Instant
    var route: Router<JourneyService>.Route?
}

/// Group commit: the batches of the `POST /v1/events` requests that arrive together are written
/// in one store transaction, and each request is answered once that transaction has committed.
///
/// libmicrohttpd's polling thread reads every request that is ready; an events request is
/// checked (body, access, rate) on its own — a refusal answers it at once and touches no other
/// — and its batch is deferred (``HTTPResponse/deferred``). When the thread comes back to the
/// first deferred request, ``flushIngests()`` ingests every deferred batch, in arrival order, as
/// one batch of the one ingest path: an event refused there refuses that event only (as within
/// one request), a resent event is a duplicate (as it is today), and nothing is answered before
/// the commit that holds it. A process killed before the commit answered none of them: the
/// clients send them again, and the event ids keep them exactly-once.
extension JourneyService {
    /// Most events written in one transaction: a group beyond it commits in several (each
    /// request's batch whole in one of them).
    static let groupEventLimit = 2000

    /// Defers `events` (already admitted) to the next group commit.
    func deferIngest(_ events: [JSON], request: HTTPRequest) -> HTTPResponse {
        pendingIngests.append(
            PendingIngest(request: request, events: events, principal: principal, started: requestStarted))
        return .deferred
    }

    /// Writes every deferred batch (one transaction per ``groupEventLimit`` events) and answers
    /// each request, in the order they were deferred (the libmicrohttpd adapter's `flush`).
    public func flushIngests() -> [HTTPResponse] {
        let pending = pendingIngests
        pendingIngests = []
        var responses: [HTTPResponse] = []
        responses.reserveCapacity(pending.count)
        var start = 0
        while start < pending.count {
            var end = start + 1
            var events = pending[start].events.count
            while end < pending.count, events + pending[end].events.count <= Self.groupEventLimit {
                events += pending[end].events.count
                end += 1
            }
            responses += commit(pending[start..<end])
            start = end
        }
        return responses
    }

    /// One transaction for `group`'s batches; an answer per request.
    private func commit(_ group: ArraySlice<PendingIngest>) -> [HTTPResponse] {
        currentRequest = "POST /v1/events (\(group.count) requests)"
        slot.beginRequest(currentRequest, digest: group.first.map { Self.requestDigest($0.request) } ?? 0)
        generation.evaluator.inputKey = nil
        let results = ingest(group.flatMap(\.events))
        control.countEventCommit(requests: group.count)
        if quarantineOutbox.hasRecords { storeQuarantine() }
        let revision = generation.ruleSet.shortRevision
        var offset = results.startIndex
        return group.map { pending in
            let own = results[offset..<offset + pending.events.count]
            offset += pending.events.count
            let response = EventRoutes.response(
                own, revision: revision, texts: RecipientTexts(self, pending.request))
            record(
                pending.request, route: pending.route, response: response, started: pending.started,
                principal: pending.principal)
            return response
        }
    }
}
