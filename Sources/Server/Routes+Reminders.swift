import Core
import FeatureKit
import HTTP
import JQ
import Locales
import RuleEngine
import Store

/// Reminders for the app's push sender: what is due, and marking them sent.
enum ReminderRoutes {
    /// `GET /v1/reminders/due?before=&limit=&topics=`: pending reminders, oldest first. A
    /// reminder meant for every participant of a challenge carries its FCM `topic` (CH-12); with
    /// `topics=true` those come once per message under `topic_messages`, with the ids of every
    /// pending row of that message to mark sent, and `reminders` keeps the per-user ones.
    static func due(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let before = try APIError.timeQuery(request, "before") ?? service.configuration.clock()
        let limit = try OutboxQuery.limit(request)
        let byTopic: Bool
        switch request.query("topics") {
        case nil, "false": byTopic = false
        case "true": byTopic = true
        default:
            throw APIError(
                422, "invalid_request", "topics must be true or false",
                errors: [["field": "topics", "message": "not true or false"]])
        }
        var body: JSONObject = ["before": .string(Timestamp.format(before))]
        do {
            let reminders = try service.store.dueReminders(before: before, limit: limit)
            let perUser = byTopic ? reminders.filter { $0.topic == nil } : reminders
            let localized = RecipientTexts(store: service.store, catalog: service.ruleSet.texts)
            body["reminders"] = .array(perUser.map(localized.dueJSON))
            if byTopic {
                body["topic_messages"] = .array(
                    try topicMessages(reminders, store: service.store, catalog: localized.catalog))
            }
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        return .json(.object(body))
    }

    /// One entry per topic message among `reminders` (its topic, kind and due time), with the
    /// ids of all its pending rows, however many (mark them sent in batches of 1000). One
    /// message goes to every subscriber: its payload is in the default locale, and `texts`
    /// has its `text` in every locale (for the sender's per-language topics or FCM's own).
    static func topicMessages(_ reminders: [Reminder], store: any Store, catalog: TextCatalog) throws -> [JSON] {
        var seen = Set<String>()
        var messages: [JSON] = []
        for reminder in reminders {
            guard let topic = reminder.topic,
                seen.insert(topic + "\u{0}" + reminder.kind + "\u{0}\(reminder.dueAt)").inserted
            else { continue }
            let ids = try store.rows(
                "SELECT id, payload FROM reminders WHERE status = 'pending' AND kind = ? AND due_at = ? ORDER BY id",
                [.text(reminder.kind), .real(reminder.dueAt)]
            ) { (id: $0.integer(0), payload: $0.text(1) ?? "") }
            .filter { (try? JSONParser().parse($0.payload))?["topic"]?.stringValue == topic }.map(\.id)
            var message: JSONObject = [
                "topic": .string(topic), "kind": .string(reminder.kind),
                "due_at": .string(Timestamp.format(reminder.dueAt)), "payload": reminder.payload,
                "ids": .array(ids.map { .number(Double($0)) }),
            ]
            if DeferredText.contains(reminder.payload) {
                let byLocale = catalog.codes.map { code in
                    (
                        code,
                        DeferredText.rendered(
                            reminder.payload, texts: RequestTexts(locale: code, source: "topic", catalog: catalog))
                    )
                }
                message["payload"] = byLocale.first?.1 ?? reminder.payload
                message["texts"] = .object(JSONObject(byLocale.map { ($0.0, $0.1["text"] ?? .null) }))
            }
            messages.append(.object(message))
        }
        return messages
    }

    static func sent(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try OutboxQuery.markSent(request, what: "a reminder id") { ids throws in
            try service.store.markRemindersSent(ids, at: service.configuration.clock())
        }
    }
}

/// What the routes that drain an outbox (reminders, analytics) share: `limit`, and marking
/// ids sent.
enum OutboxQuery {
    /// `?limit=` from 1 to 1000 (default 100).
    static func limit(_ request: HTTPRequest) throws(APIError) -> Int {
        guard let text = request.query("limit") else { return 100 }
        guard let parsed = Int(text), (1...1000).contains(parsed) else {
            throw APIError(
                422, "invalid_request", "limit must be a whole number from 1 to 1000 (got \(text))",
                errors: [["field": "limit", "message": "not a whole number from 1 to 1000"]])
        }
        return parsed
    }

    /// `{ids: [...]}` (at most 1000 whole numbers ≥ 1; `what` names one) marked by `mark`, which returns those it
    /// marked: `{marked, ignored}` (ignored: unknown, or sent already).
    static func markSent(_ request: HTTPRequest, what: String, _ mark: ([Int64]) throws -> [Int64]) throws(APIError)
        -> HTTPResponse
    {
        var fields = try RequestBody.fields(request)
        let items = (try? fields.array("ids")) ?? []
        var ids: [Int64] = []
        for (index, item) in items.enumerated() {
            guard case .number(let value) = item, value == value.rounded(), value >= 1, value < 9e15 else {
                fields.fail("ids", at: String(index), .invalid, "must be \(what) (a whole number ≥ 1)")
                continue
            }
            ids.append(Int64(value))
        }
        if items.count > 1000 { fields.fail("ids", .tooLong, "at most 1000 ids at once") }
        try fields.check()
        let marked: [Int64]
        do {
            marked = try mark(ids)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        return .json([
            "marked": .array(marked.map { .number(Double($0)) }),
            "ignored": .array(Array(Set(ids).subtracting(marked)).sorted().map { .number(Double($0)) }),
        ])
    }
}

extension Reminder {
    /// The FCM topic of a message meant for every participant of a challenge (its payload's
    /// `topic`); nil for a reminder to one user.
    var topic: String? { payload["topic"]?.stringValue }

    /// The reminder as `GET /v1/reminders/due` lists it.
    var dueJSON: JSON {
        [
            "id": .number(Double(id ?? 0)), "user_id": .string(userID), "dog_id": dogID.map(JSON.string) ?? .null,
            "kind": .string(kind), "due_at": .string(Timestamp.format(dueAt)), "payload": payload,
            "topic": topic.map(JSON.string) ?? .null,
        ]
    }
}

/// The texts of each recipient of a page of reminders: their profile's locale, else the
/// default (a push has no request to take `Accept-Language` from); each profile read once.
/// A batch's answer (`POST /v1/events`) writes each event's user's texts the same way, with
/// its request's `Accept-Language` before the default.
final class RecipientTexts {
    let store: any Store
    let catalog: TextCatalog
    let acceptLanguage: String?
    private var chosen: [String: RequestTexts] = [:]

    init(store: any Store, catalog: TextCatalog, acceptLanguage: String? = nil) {
        self.store = store
        self.catalog = catalog
        self.acceptLanguage = acceptLanguage
    }

    /// The texts of the users of `request`'s events, answered by `service`.
    convenience init(_ service: JourneyService, _ request: HTTPRequest) {
        self.init(
            store: service.store, catalog: service.generation.ruleSet.texts,
            acceptLanguage: request.header("Accept-Language"))
    }

    func texts(for user: String) -> RequestTexts {
        if let known = chosen[user] { return known }
        let profile = (try? store.userProfile(user)) ?? nil
        let texts = RequestTexts.choose(profile: profile, acceptLanguage: acceptLanguage, catalog: catalog)
        chosen[user] = texts
        return texts
    }

    /// `reminder` as the sender reads it: its deferred texts (``DeferredText``) rendered in its
    /// recipient's locale, which `locale` names.
    func dueJSON(_ reminder: Reminder) -> JSON {
        guard DeferredText.contains(reminder.payload), case .object(var object) = reminder.dueJSON else {
            return reminder.dueJSON
        }
        let texts = texts(for: reminder.userID)
        object["payload"] = DeferredText.rendered(reminder.payload, texts: texts)
        object["locale"] = .string(texts.locale)
        return .object(object)
    }
}
