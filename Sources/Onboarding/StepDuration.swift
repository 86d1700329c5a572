/// How long a user spent on an onboarding step, as the API and analytics give it: seconds,
/// rounded to the millisecond. Times are stored as seconds in a `Double`, so a difference of
/// two carries float noise (13.217332124710083); every duration is rounded here, where it is
/// computed, and nowhere else.
public enum StepDuration {
    /// Steps per second of the precision durations are given to (milliseconds).
    public static let perSecond = 1000.0

    /// The seconds from `shown` to `done` (never negative), rounded to the millisecond.
    public static func seconds(from shown: Double, to done: Double) -> Double {
        rounded(max(0, done - shown))
    }

    /// `seconds` rounded to the millisecond.
    public static func rounded(_ seconds: Double) -> Double {
        // Dividing a whole number by 1000 gives the double nearest k/1000, printed as such.
        (seconds * perSecond).rounded() / perSecond
    }
}
