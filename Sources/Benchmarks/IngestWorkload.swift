import Core
import JQ

/// Realistic app events: users each register a dog, then log weights, open the journey and
/// tap around over the following days (a third each), in time order per user.
struct IngestWorkload {
    /// The events as JSON lines, as `journey ingest` reads them.
    var lines: [String] = []
    var weights = 0
    var openings = 0
    var registrations = 0

    /// Events ≈ `count`: `count / 100` users with 100 events each.
    init(events count: Int) {
        let users = max(1, count / 100)
        lines.reserveCapacity(users * 100)
        for user in 0..<users {
            registrations += 1
            lines.append(
                #"{"event_id":"reg","user_id":"u\#(user)","type":"dog_registered","occurred_at":"2026-11-23T08:00:00Z","dog_id":"d\#(user)","payload":{"name":"Dog \#(user)","age_range":"4-8m","breed":"border_collie","timezone":"Europe/Berlin","metrics":{"bond":\#(user % 100),"impulse_control":\#((user * 7) % 100)}}}"#
            )
            for i in 0..<99 {
                let minute = i * 80
                let day = 23 + minute / 1440
                let at = "2026-11-\(pad(day))T\(pad((minute / 60) % 24)):\(pad(minute % 60)):00+01:00"
                switch i % 3 {
                case 0:
                    weights += 1
                    lines.append(
                        #"{"event_id":"e\#(i)","user_id":"u\#(user)","type":"weight_saved","occurred_at":"\#(at)","dog_id":"d\#(user)","payload":{"kg":\#(8 + i / 10).\#(i % 10)}}"#
                    )
                case 1:
                    openings += 1
                    lines.append(
                        #"{"event_id":"e\#(i)","user_id":"u\#(user)","type":"journey_opened","occurred_at":"\#(at)","dog_id":"d\#(user)"}"#
                    )
                default:
                    lines.append(
                        #"{"event_id":"e\#(i)","user_id":"u\#(user)","type":"tap","occurred_at":"\#(at)","payload":{"element_id":"plus","screen":"today"}}"#
                    )
                }
            }
        }
    }

    private func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
