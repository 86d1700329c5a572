import Store

extension Ingestor {
    /// Which of a batch's events may already be stored: those stored before the batch (read
    /// once per user, under the batch's writer lock, so no other instance adds any meanwhile;
    /// none for the optimistic try) and those accepted earlier in it. Only these are looked up
    /// one by one.
    struct BatchEvents {
        private struct Key: Hashable {
            var user: String
            var id: String
        }
        private var stored: Set<Key> = []

        init() {}

        init(_ events: [Event], in store: any Store) throws {
            var byUser: [String: [String]] = [:]
            for event in events { byUser[event.userID, default: []].append(event.eventID) }
            for (user, ids) in byUser {
                for id in try store.storedEventIDs(user: user, among: ids) { stored.insert(Key(user: user, id: id)) }
            }
        }

        func mayBeStored(_ event: Event) -> Bool { stored.contains(Key(user: event.userID, id: event.eventID)) }

        mutating func accepted(_ event: Event) { stored.insert(Key(user: event.userID, id: event.eventID)) }
    }
}
