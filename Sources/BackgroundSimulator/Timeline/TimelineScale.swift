/// Maps run time to plot pixels: how wide the run is drawn, and where a bar goes with its minimum visible width.
struct TimelineScale {
    /// The longest run drawn, in seconds (about 31 years); a longer duration is cut to it.
    static let longestDuration = 1e9

    /// The length of the run in seconds: the x axis spans `0...duration`.
    let duration: Double
    /// The horizontal scale.
    let pixelsPerSecond: Double
    /// The plot's width in pixels, `duration × pixelsPerSecond` rounded up (ignoring rounding errors).
    let width: Double
    /// The narrowest a bar or span is drawn, in pixels.
    let minimumWidth: Double

    /// The scale for a run of `duration` seconds: it fits `fitWidth` pixels, unless that is less than
    /// `options.minimumPixelsPerHour` (the plot then scrolls), and never exceeds `options.maximumPlotWidth`.
    init(duration: Double, fitWidth: Double, options: TimelineRenderer.Options) {
        let duration = min(max(duration, 1e-3), Self.longestDuration)
        let minimum = max(options.minimumPixelsPerHour, 0) / 3600
        let widest = max(options.maximumPlotWidth, fitWidth, 100)
        var pixelsPerSecond = max(max(fitWidth, 100) / duration, minimum)
        if duration * pixelsPerSecond > widest {
            pixelsPerSecond = widest / duration
        }
        self.duration = duration
        self.pixelsPerSecond = pixelsPerSecond
        self.width = max((duration * pixelsPerSecond - 1e-6).rounded(.up), 1)
        self.minimumWidth = min(max(options.minimumBarWidth, 0.5), 20)
    }

    /// `t` clamped to `0...duration` (0 when it is not a number).
    func time(_ t: Double) -> Double {
        guard t.isFinite else { return t > 0 ? duration : 0 }
        return min(max(t, 0), duration)
    }

    /// Whether `t` is a number in `0...duration`: markers outside are left out.
    func contains(_ t: Double) -> Bool {
        t >= 0 && t <= duration
    }

    /// Whether `start...end` (in either order) overlaps `0...duration`: intervals outside are left out, intervals
    /// across an end are clipped. An interval with an end that is not a number is left out.
    func overlaps(_ start: Double, _ end: Double) -> Bool {
        guard !start.isNaN && !end.isNaN else { return false }
        return max(start, end) >= 0 && min(start, end) <= duration
    }

    /// The x coordinate of `t`, clamped to the plot.
    func x(_ t: Double) -> Double {
        time(t) * pixelsPerSecond
    }

    /// Where the interval `start...end` is drawn: at least ``minimumWidth`` wide, and inside the plot.
    func extent(_ start: Double, _ end: Double) -> (x: Double, width: Double) {
        let a = x(start)
        let b = x(end)
        let width = max(abs(b - a), minimumWidth)
        return (min(min(a, b), max(self.width - width, 0)), width)
    }
}
