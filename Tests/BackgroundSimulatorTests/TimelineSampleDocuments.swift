import BackgroundSimulator
import BackgroundTestSupport

/// Documents for the timeline's tests: a small realistic night, hostile names, and a large month.
enum TimelineSampleDocuments {
    /// 2024-03-11 22:00 in UTC+01:00.
    static let origin = 1_710_190_800.0
    static let hostileApp = "com.evil.<script>alert(\"pwn\")</script>&'quoted'"
    static let hostileAssertion = "\"><img src=x onerror=alert(1)>"
    static let injection = "</title><svg onload=\"document.getElementById('timeline').setAttribute('data-pwned','1')\">"
    static let longName = String(repeating: "Very long background task name ", count: 40) + "END"

    /// Four hours across midnight: the battery runs down into Low Power Mode, the phone is plugged in, the network
    /// changes, a mail sync leaks and is killed with 0x8badf00d, the phone reboots; plus an app with hostile names.
    static var night: TimelineDocument {
        let m = 60.0
        let battery = (0...48).map { step -> TimelineBatterySample in
            let t = Double(step) * 5 * m
            let charging = t >= 95 * m
            let level = charging ? min(0.18 + (t - 95 * m) / (150 * m) * 0.8, 1) : 0.41 - t / (95 * m) * 0.23
            return TimelineBatterySample(
                time: t,
                level: level,
                charging: charging,
                lowPowerMode: t >= 70 * m && t < 95 * m
            )
        }
        return TimelineDocument(
            title: "Night sync: photos, mail & a hostile scenario",
            subtitle: "seed 42 \u{B7} policy iOS 18 (opportunistic) \u{B7} scenario night-sync.json",
            duration: 240 * m,
            originUnixSeconds: origin,
            utcOffsetSeconds: 3600,
            battery: battery,
            network: [
                TimelineSpan(start: 0, end: 38 * m, label: "wifi", detail: "Home (unmetered)"),
                TimelineSpan(start: 38 * m, end: 64 * m, label: "cellular (metered)", detail: "LTE, metered"),
                TimelineSpan(start: 64 * m, end: 80 * m, label: "none", detail: "airplane mode"),
                TimelineSpan(start: 80 * m, end: 240 * m, label: "wifi", detail: "Home (unmetered)"),
            ],
            deviceMarkers: [
                TimelineMarker(time: 70 * m, label: "Low Power Mode on", severity: .warning, detail: "battery at 20%"),
                TimelineMarker(time: 95 * m, label: "plugged in", detail: "USB-C, 20 W"),
                TimelineMarker(time: 95 * m, label: "Low Power Mode off", detail: "turned off by charging"),
                TimelineMarker(time: 150 * m, label: "reboot", severity: .fault, detail: "system update"),
            ],
            apps: [photos, mail, hostile]
        )
    }

    static var photos: AppTimeline {
        let m = 60.0
        return AppTimeline(
            id: "com.example.photos",
            states: [
                TimelineSpan(start: 0, end: 22 * m, label: "active", detail: "user editing"),
                TimelineSpan(start: 22 * m, end: 22 * m + 2, label: "inactive"),
                TimelineSpan(start: 22 * m + 2, end: 27 * m, label: "background", detail: "uploading"),
                TimelineSpan(start: 27 * m, end: 110 * m, label: "suspended"),
                TimelineSpan(start: 110 * m, end: 131 * m, label: "background", detail: "BGProcessingTask"),
                TimelineSpan(start: 131 * m, end: 150 * m, label: "suspended"),
                TimelineSpan(start: 150 * m, end: 240 * m, label: "notRunning", detail: "after reboot"),
            ],
            assertions: [
                TimelineBar(name: "Upload IMG_0042.HEIC", start: 22 * m, end: 24 * m, outcome: .ended),
                TimelineBar(name: "Finish upload queue", start: 22 * m + 30, end: 27 * m, outcome: .expired),
                TimelineBar(name: "Save thumbnails", start: 23 * m, end: 23 * m + 40, outcome: .ended),
            ],
            tasks: [
                TimelineBar(
                    name: "com.example.photos.refresh",
                    start: 48 * m,
                    end: 48 * m + 25,
                    outcome: .succeeded,
                    detail: "BGAppRefreshTask, 25 s"
                ),
                TimelineBar(
                    name: "com.example.photos.process",
                    start: 110 * m,
                    end: 131 * m,
                    outcome: .succeeded,
                    detail: "BGProcessingTask, requires power and network"
                ),
                TimelineBar(name: "com.example.photos.cleanup", start: 230 * m, end: 240 * m, outcome: .running),
            ],
            budget: [
                TimelineBudgetSample(time: 0, remainingSeconds: .greatestFiniteMagnitude, limitSeconds: 30),
                TimelineBudgetSample(time: 22 * m + 2, remainingSeconds: 300, limitSeconds: 300),
                TimelineBudgetSample(time: 24 * m, remainingSeconds: 182, limitSeconds: 300),
                TimelineBudgetSample(time: 26 * m, remainingSeconds: 62, limitSeconds: 300),
                TimelineBudgetSample(time: 27 * m, remainingSeconds: 0, limitSeconds: 300),
                TimelineBudgetSample(time: 110 * m, remainingSeconds: 300, limitSeconds: 300),
            ],
            markers: [TimelineMarker(time: 150 * m, label: "killed by reboot", severity: .warning)]
        )
    }

    static var mail: AppTimeline {
        let m = 60.0
        return AppTimeline(
            id: "com.example.mail",
            states: [
                TimelineSpan(start: 0, end: 30 * m, label: "notRunning"),
                TimelineSpan(start: 30 * m, end: 41 * m, label: "active"),
                TimelineSpan(start: 41 * m, end: 41 * m + 30, label: "background", detail: "Sync mailbox"),
                TimelineSpan(start: 41 * m + 30, end: 41 * m + 31, label: "terminated", detail: "0x8badf00d"),
                TimelineSpan(start: 41 * m + 31, end: 200 * m, label: "notRunning"),
                TimelineSpan(start: 200 * m, end: 200 * m + 28, label: "background", detail: "launched for refresh"),
                TimelineSpan(start: 200 * m + 28, end: 240 * m, label: "suspended"),
            ],
            assertions: [
                TimelineBar(
                    name: "Sync mailbox",
                    start: 41 * m,
                    end: 41 * m + 30,
                    outcome: .leaked,
                    detail: "began at MailSync.swift:88 in sync()\nnever ended"
                ),
                TimelineBar(name: "Fetch attachments", start: 200 * m, end: 200 * m + 20, outcome: .ended),
            ],
            tasks: [
                TimelineBar(
                    name: "com.example.mail.refresh",
                    start: 200 * m,
                    end: 200 * m + 28,
                    outcome: .failed,
                    detail: "setTaskCompleted(success: false)"
                )
            ],
            budget: [
                TimelineBudgetSample(time: 41 * m, remainingSeconds: 30, limitSeconds: 30),
                TimelineBudgetSample(time: 41 * m + 30, remainingSeconds: 0, limitSeconds: 30),
            ],
            markers: [
                TimelineMarker(
                    time: 41 * m + 30,
                    label: "0x8badf00d",
                    severity: .fault,
                    detail: "Termination: leaked assertion \"Sync mailbox\" (MailSync.swift:88)"
                ),
                TimelineMarker(time: 200 * m, label: "background launch", detail: "for com.example.mail.refresh"),
            ]
        )
    }

    static var hostile: AppTimeline {
        let m = 60.0
        return AppTimeline(
            id: hostileApp + longName,
            states: [
                TimelineSpan(start: 0, end: 90 * m, label: "<b>weird</b> & \"state\""),
                TimelineSpan(start: 90 * m, end: 240 * m, label: "suspended", detail: injection),
            ],
            assertions: [
                TimelineBar(name: hostileAssertion, start: 10 * m, end: 80 * m, outcome: .open, detail: injection),
                TimelineBar(name: longName, start: 30 * m, end: 120 * m, outcome: .ended, detail: longName),
                TimelineBar(name: "zero length", start: 100 * m, end: 100 * m, outcome: .expired),
            ],
            tasks: [
                TimelineBar(name: injection, start: 60 * m, end: 62 * m, outcome: .killed, detail: "\u{0}\u{7}\u{FFFE}")
            ],
            budget: [],
            markers: [TimelineMarker(time: 5 * m, label: "<b>force quit</b>", severity: .warning, detail: injection)]
        )
    }

    /// A month of 20 apps: each day, every app has 42 assertions and 42 tasks (50 400 bars in all), a few
    /// state changes, hourly budget samples; the battery is sampled every 10 minutes.
    static func large(apps appCount: Int = 20, days: Int = 30) -> TimelineDocument {
        var random = SampleGenerator(seed: 7)
        let duration = Double(days) * 86_400
        let battery = stride(from: 0.0, to: duration, by: 600).map { t -> TimelineBatterySample in
            let hour = (t / 3600).truncatingRemainder(dividingBy: 24)
            return TimelineBatterySample(
                time: t,
                level: 0.2 + 0.75 * abs(12 - hour) / 12,
                charging: hour < 7,
                lowPowerMode: hour > 20
            )
        }
        let apps = (0..<appCount).map { index -> AppTimeline in
            var app = AppTimeline(id: "com.example.app\(index)")
            for day in 0..<days { addDay(day, to: &app, random: &random) }
            return app
        }
        return TimelineDocument(
            title: "A month of 20 apps",
            subtitle: "seed 7",
            duration: duration,
            originUnixSeconds: origin,
            utcOffsetSeconds: -5 * 3600,
            battery: battery,
            network: [TimelineSpan(start: 0, end: duration, label: "wifi")],
            deviceMarkers: (0..<days).map { TimelineMarker(time: Double($0) * 86_400 + 3600, label: "plugged in") },
            apps: apps
        )
    }
}

extension TimelineSampleDocuments {
    /// One day of an app in the large document: woken once, 42 assertions and 42 tasks, hourly budget samples.
    fileprivate static func addDay(_ day: Int, to app: inout AppTimeline, random: inout SampleGenerator) {
        let base = Double(day) * 86_400
        let wake = base + 7 * 3600 + random.next(below: 3600)
        app.states += [
            TimelineSpan(start: base, end: wake, label: "suspended"),
            TimelineSpan(start: wake, end: wake + 1800, label: "active"),
            TimelineSpan(start: wake + 1800, end: wake + 1830, label: "background"),
            TimelineSpan(start: wake + 1830, end: base + 86_400, label: "suspended"),
        ]
        let outcomes: [TimelineBar.Outcome] = [.ended, .ended, .ended, .expired, .leaked]
        let taskOutcomes: [TimelineBar.Outcome] = [.succeeded, .succeeded, .failed, .killed]
        for _ in 0..<42 {
            let start = base + random.next(below: 86_000)
            app.assertions.append(
                TimelineBar(
                    name: "assertion \(day)-\(start)",
                    start: start,
                    end: start + random.next(below: 40),
                    outcome: outcomes[Int(random.next(below: 5))],
                    detail: "day \(day)"
                )
            )
            let taskStart = base + random.next(below: 86_000)
            app.tasks.append(
                TimelineBar(
                    name: "task \(day)",
                    start: taskStart,
                    end: taskStart + random.next(below: 300),
                    outcome: taskOutcomes[Int(random.next(below: 4))]
                )
            )
        }
        app.budget += (0..<24).map {
            TimelineBudgetSample(
                time: base + Double($0) * 3600,
                remainingSeconds: random.next(below: 30),
                limitSeconds: 30
            )
        }
        app.markers.append(TimelineMarker(time: wake, label: "launch", detail: "day \(day)"))
    }
}

/// The shared seeded generator, with the draw the large document needs.
private struct SampleGenerator {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { random.next() }

    /// A whole number of seconds in `0..<bound`.
    mutating func next(below bound: Double) -> Double {
        Double(next() % UInt64(max(bound, 1)))
    }
}
