/// The time axis: ticks at round wall-clock times that suit the scale (seconds to weeks), day boundaries at local
/// midnights labelled `day N`, and the grid lines they draw across the lanes.
struct TimelineAxis {
    /// The axis's height, in pixels.
    static let height = 40.0
    /// The tick intervals, in seconds, from which the shortest that leaves room for the labels is chosen.
    static let steps: [Double] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800,
        604_800,
    ]
    private static let day = 86_400.0
    /// The most ticks or day lines drawn.
    private static let limit = 20_000

    let scale: TimelineScale
    let clock: TimelineClock
    /// The interval between ticks, in seconds.
    let step: Double

    init(scale: TimelineScale, clock: TimelineClock) {
        self.scale = scale
        self.clock = clock
        let fits = { (step: Double) in step * scale.pixelsPerSecond >= (step < 60 ? 64 : 54) }
        if let step = Self.steps.first(where: fits) {
            self.step = step
        } else {
            let weeks = (54 / (604_800 * scale.pixelsPerSecond)).rounded(.up)
            self.step = 604_800 * max(weeks, 1)
        }
    }

    /// The tick times.
    var ticks: [Double] { clock.alignedTimes(step: step, duration: scale.duration, limit: Self.limit) }

    /// The local midnights in the run, when days are at least 3 px wide.
    var midnights: [Double] {
        Self.day * scale.pixelsPerSecond >= 3
            ? clock.alignedTimes(step: Self.day, duration: scale.duration, limit: Self.limit) : []
    }

    /// The axis lane, as SVG for the axis's own `<svg>` element.
    func svg() -> String {
        let number = TimelineMarkup.number
        let width = scale.width
        let description = "Time axis, \(clock.offsetText), ticks every \(TimelineClock.duration(step))"
        var svg = "<g class=\"lane axis\" data-lane=\"axis\" role=\"img\" aria-label=\"\(description)\">"
        svg += "<rect class=\"lane-bg\" width=\"\(number(width))\" height=\"\(number(Self.height))\"/>"
        var marks = ""
        for t in ticks {
            let x = scale.x(t)
            marks += "M\(number(x)) \(number(Self.height - 6))V\(number(Self.height))"
            let text = step < Self.day ? clock.timeOfDay(t, seconds: step < 60) : dayOfMonth(t)
            svg += label(text, x: x, y: 30, classes: "tick")
        }
        svg += "<path class=\"tick-mark\" d=\"\(marks)\"/>"
        svg += dayLabels()
        svg += "<path class=\"axis-line\" d=\"M0 \(number(Self.height - 0.5))H\(number(width))\"/></g>"
        return svg
    }

    /// The grid under the lanes: a light line per tick, a darker one per midnight, a red one per device fault.
    func grid(height: Double, faults: [Double]) -> String {
        let number = TimelineMarkup.number
        let bottom = number(height)
        var minor = ""
        for t in ticks { minor += "M\(number(scale.x(t))) 0V\(bottom)" }
        var days = ""
        for t in midnights { days += "M\(number(scale.x(t))) 0V\(bottom)" }
        var faultPath = ""
        for x in faults { faultPath += "M\(number(x)) 0V\(bottom)" }
        return "<g class=\"grid\" aria-hidden=\"true\"><path class=\"grid-tick\" d=\"\(minor)\"/>"
            + "<path class=\"grid-day\" d=\"\(days)\"/><path class=\"grid-fault\" d=\"\(faultPath)\"/></g>"
    }

    /// `day N` labels at midnights, with the date when there is room. (The day at the plot's left edge is in the
    /// corner, kept up to date by the page's script as the plot scrolls.)
    private func dayLabels() -> String {
        let dayWidth = Self.day * scale.pixelsPerSecond
        let every = dayWidth >= 60 ? 1 : Int((60 / max(dayWidth, 1e-9)).rounded(.up))
        let withDate = dayWidth >= 150
        var svg = ""
        var lines = ""
        for t in midnights {
            let x = scale.x(t)
            lines += "M\(TimelineMarkup.number(x)) 0V19"
            let day = clock.dayNumber(t)
            guard (day - 1) % every == 0, x + 40 <= scale.width else { continue }
            let text = "day \(day)" + (withDate ? " \u{B7} " + clock.date(t) : "")
            svg += label(text, x: x + 4, y: 14, classes: "day", anchor: "start")
        }
        return "<path class=\"day-mark\" d=\"\(lines)\"/>" + svg
    }

    /// `"12 Mar"`: the date part of a midnight's label.
    private func dayOfMonth(_ t: Double) -> String {
        String(clock.date(t).dropFirst(4))
    }

    /// A text element centred on `x`, or aligned to the plot's edge when it would not fit there.
    private func label(_ text: String, x: Double, y: Double, classes: String, anchor: String? = nil) -> String {
        let half = TimelineMarkup.estimatedWidth(text) / 2
        var anchor = anchor ?? "middle"
        var x = x
        if anchor == "middle" && x - half < 2 {
            anchor = "start"
            x = max(x, 2)
        } else if anchor == "middle" && x + half > scale.width - 2 {
            anchor = "end"
            x = min(x, scale.width - 2)
        }
        return "<text class=\"\(classes)\" x=\"\(TimelineMarkup.number(x))\" y=\"\(TimelineMarkup.number(y))\" "
            + "text-anchor=\"\(anchor)\">\(TimelineMarkup.escaped(text))</text>"
    }
}
