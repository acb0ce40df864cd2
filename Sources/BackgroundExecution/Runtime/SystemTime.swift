public import BackgroundCore
public import Foundation

/// The system's time, in one place: its origin and the one conversion between an app's `Date`s
/// and the system's instants.
///
/// - **One origin.** On the real clock an ``Instant`` is the time since the machine booted
///   (`CLOCK_BOOTTIME`, which `ContinuousClock` reads on Linux and which goes on counting
///   through suspend), so every process on the machine, a daemon and its apps alike, reads the
///   same instant at the same moment without agreeing on anything. A ``ManualClock`` (tests) and
///   the simulator have virtual time, whose origin is where they start.
/// - **One conversion.** Apps hand the system `Date`s (`earliestBeginDate`) and mean a distance
///   from now (`Date(timeIntervalSinceNow: 900)`: "15 minutes from now"). A date becomes the
///   system's `now` plus its distance from the real clock's now, **rounded to the nearest whole
///   second**: the time app code takes between making the date and handing it over (under a
///   loaded machine, milliseconds) then never changes the instant, so a virtual-time run is the
///   same run every time. Scheduling is coarser than a second anyway.
public enum SystemTime {
    /// The boot clock's reading now: the instant on the real clock's timeline.
    public static var bootClockNow: Instant {
        Instant(offset: .nanoseconds(ProcessControl.bootTimeNanoseconds()))
    }

    /// The instant of an app's date on a timeline that reads `now` at this moment.
    public static func instant(for date: Date, now: Instant) -> Instant {
        now + .seconds(Int64(date.timeIntervalSinceNow.rounded()))
    }

    /// The date an app sees for an instant on a timeline that reads `now` at this moment.
    public static func date(for instant: Instant, now: Instant) -> Date {
        Date(timeIntervalSinceNow: (instant - now).seconds)
    }
}
