extension TimelineCanvas {
    /// One sample of a step series, reduced to what is drawn: `value` is the height as a fraction of the chart.
    struct SeriesPoint {
        /// The time, in seconds from the start of the run.
        var time: Double
        /// The height, from 0 to 1.
        var value: Double
        /// What splits the series into differently coloured runs (charging) and hover groups.
        var flags: Int
        /// The sample as given, for details: the battery level, or the seconds remaining.
        var raw: Double
        /// The limit's height, from 0 to 1, for the budget's limit line.
        var limit: Double = 0
        /// Whether the line goes straight to the next point (a ramp) rather than holding its value.
        var ramps = false
    }

    /// Budget values from here up (and values that are not numbers) mean unlimited, as `backgroundTimeRemaining`'s
    /// `Double.greatestFiniteMagnitude` in the foreground.
    static let unlimited = 1e12

    /// The widest hover group of a series, in pixels: a group's detail summarises the samples under it.
    static let sampleGroupWidth = 48.0

    /// Draws the battery: the level as a step area, charging in a colour of its own, Low Power Mode as a strip on
    /// top, and hover groups of samples.
    mutating func drawBattery(_ samples: [TimelineBatterySample]) {
        let laneHeight = 44.0
        let description = "Battery level, \(samples.count) samples"
        beginLane(
            id: "device-battery",
            name: "battery",
            description: description,
            height: laneHeight,
            scaleTop: "100%",
            scaleBottom: "0%"
        )
        let points = Self.sorted(
            samples.map {
                let level = $0.level.isFinite ? min(max($0.level, 0), 1) : 0
                return SeriesPoint(
                    time: $0.time,
                    value: level,
                    flags: ($0.charging ? 1 : 0) | ($0.lowPowerMode ? 2 : 0),
                    raw: level
                )
            },
            scale: scale
        )
        let chart = (top: 5.0, bottom: laneHeight - 2)
        drawSteps(points, chart: chart, run: { $0 & 1 }, name: { $0 == 1 ? "charging" : "draining" })
        for run in runs(of: points, key: { $0 & 2 }) where points[run.lowerBound].flags & 2 != 0 {
            let start = points[run.lowerBound].time
            let end = run.upperBound < points.count ? points[run.upperBound].time : scale.duration
            let (x, width) = scale.extent(start, end)
            let geometry = box(x: x, y: 0, width: width, height: 3)
            detailed("rect", "class=\"lpm\" \(geometry)", detail: "Low Power Mode on\n" + clock.range(start, end))
        }
        let clock = self.clock
        drawSampleGroups(points, laneHeight: laneHeight) { group, start, end in
            let levels = group.map(\.raw)
            let first = Self.percent(levels.first ?? 0)
            let last = Self.percent(levels.last ?? 0)
            let lowest = Self.percent(levels.min() ?? 0)
            let flags = group.first?.flags ?? 0
            let change = first == last ? "Battery " + first : "Battery " + first + " \u{2192} " + last
            return change + (lowest != first && lowest != last ? " (lowest " + lowest + ")" : "") + "\n"
                + (flags & 1 != 0 ? "charging" : "on battery")
                + (flags & 2 != 0 ? " \u{B7} Low Power Mode on" : "") + "\n" + clock.range(start, end)
        }
        endLane()
    }

    /// Draws an app's background time remaining as a step area, its limit as a dashed line, and hover groups.
    mutating func drawBudget(_ samples: [TimelineBudgetSample], id: String, description: String) {
        let laneHeight = 30.0
        let limits = samples.flatMap { [$0.limitSeconds, $0.remainingSeconds] }.filter { $0 > 0 && $0 < Self.unlimited }
        let top = limits.max() ?? 30
        beginLane(
            id: id,
            name: "budget",
            description: description + ", \(samples.count) samples",
            height: laneHeight,
            scaleTop: TimelineClock.duration(top),
            scaleBottom: "0 s"
        )
        let points = Self.sorted(
            samples.map {
                let finite = $0.remainingSeconds < Self.unlimited
                let value = finite ? min(max($0.remainingSeconds / top, 0), 1) : 1
                let limit = $0.limitSeconds < Self.unlimited ? min(max($0.limitSeconds / top, 0), 1) : 1
                return SeriesPoint(
                    time: $0.time,
                    value: value,
                    flags: finite ? 0 : 1,
                    raw: $0.remainingSeconds,
                    limit: limit,
                    ramps: $0.depleting && finite
                )
            },
            scale: scale
        )
        let chart = (top: 4.0, bottom: laneHeight - 2)
        let limitPoints = points.map { SeriesPoint(time: $0.time, value: $0.limit, flags: 0, raw: 0) }
        appendStepPath(limitPoints, range: limitPoints.indices, chart: chart, area: nil, line: "budget-limit")
        drawSteps(points, chart: chart, run: { $0 }, name: { $0 == 1 ? "unlimited" : "budget" })
        let clock = self.clock
        drawSampleGroups(points, laneHeight: laneHeight) { group, start, end in
            let values = group.map(\.raw)
            let first = Self.seconds(values.first ?? 0)
            let last = Self.seconds(values.last ?? 0)
            let lowest = Self.seconds(values.filter { $0 < Self.unlimited }.min() ?? .infinity)
            let change = first == last ? first : first + " \u{2192} " + last
            return "Background time remaining " + change
                + (lowest != first && lowest != last ? " (lowest " + lowest + ")" : "") + "\n"
                + clock.range(start, end)
        }
        endLane()
    }

    /// `points` sorted by time, without those after the end of the run; samples before its start count as at its
    /// start, and of samples at the same time the last given wins.
    static func sorted(_ points: [SeriesPoint], scale: TimelineScale) -> [SeriesPoint] {
        let valid = points.filter { $0.time.isFinite && $0.time <= scale.duration }
        let order = valid.indices.sorted { (valid[$0].time, $0) < (valid[$1].time, $1) }
        var result: [SeriesPoint] = []
        result.reserveCapacity(valid.count)
        for index in order {
            var point = valid[index]
            point.time = scale.time(point.time)
            if let last = result.last, last.time == point.time {
                result[result.count - 1] = point
            } else {
                result.append(point)
            }
        }
        return result
    }

    /// The index ranges of `points` over which `key` is constant.
    func runs(of points: [SeriesPoint], key: (Int) -> Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for index in points.indices.dropFirst() where key(points[index].flags) != key(points[start].flags) {
            result.append(start..<index)
            start = index
        }
        if !points.isEmpty { result.append(start..<points.count) }
        return result
    }

    /// Draws `points` as step areas with a line on top, one pair of paths per run of `run`, classed `name(run)`.
    private mutating func drawSteps(
        _ points: [SeriesPoint],
        chart: (top: Double, bottom: Double),
        run: (Int) -> Int,
        name: (Int) -> String
    ) {
        for range in runs(of: points, key: run) {
            let kind = name(run(points[range.lowerBound].flags))
            appendStepPath(points, range: range, chart: chart, area: kind + "-area", line: kind + "-line")
        }
    }

    /// Appends the step path of `points[range]`, ending where the next point starts (or at the end of the run);
    /// points closer than half a pixel to the previous vertex only update its value.
    private mutating func appendStepPath(
        _ points: [SeriesPoint],
        range: Range<Int>,
        chart: (top: Double, bottom: Double),
        area: String?,
        line: String
    ) {
        guard !range.isEmpty else { return }
        let endTime = range.upperBound < points.count ? points[range.upperBound].time : scale.duration
        var vertices: [(x: Double, y: Double, ramps: Bool)] = []
        for point in points[range] {
            let x = scale.x(point.time)
            let y = chart.bottom - point.value * (chart.bottom - chart.top)
            if let last = vertices.last, x - last.x < 0.5 {
                vertices[vertices.count - 1].y = y
                vertices[vertices.count - 1].ramps = point.ramps
            } else if vertices.last?.y != y || vertices.last?.ramps != point.ramps {
                vertices.append((x, y, point.ramps))
            }
        }
        let number = TimelineMarkup.number
        var steps = ""
        for (previous, vertex) in zip(vertices, vertices.dropFirst()) {
            // A ramp goes straight to the next point; a step holds its value, then jumps.
            steps +=
                previous.ramps
                ? "L" + number(vertex.x) + " " + number(vertex.y) : "H" + number(vertex.x) + "V" + number(vertex.y)
        }
        let (first, end) = (vertices[0], number(scale.x(endTime)))
        if let area {
            let base = number(chart.bottom)
            raw(
                "<path class=\"\(area)\" d=\"M\(number(first.x)) \(base)V\(number(first.y))\(steps)H\(end)V\(base)Z\"/>"
            )
        }
        raw("<path class=\"\(line)\" d=\"M\(number(first.x)) \(number(first.y))\(steps)H\(end)\"/>")
    }

    /// Adds transparent hover targets over `points`, one per group of samples at most ``sampleGroupWidth`` wide
    /// with the same flags; `describe` gives a group's detail from its samples, start and end.
    private mutating func drawSampleGroups(
        _ points: [SeriesPoint],
        laneHeight: Double,
        describe: (ArraySlice<SeriesPoint>, Double, Double) -> String
    ) {
        var start = 0
        while start < points.count {
            var end = start + 1
            let left = scale.x(points[start].time)
            while end < points.count, points[end].flags == points[start].flags,
                scale.x(points[end].time) - left < Self.sampleGroupWidth
            {
                end += 1
            }
            let endTime = end < points.count ? points[end].time : scale.duration
            let (x, width) = scale.extent(points[start].time, endTime)
            let detail = describe(points[start..<end], points[start].time, endTime)
            detailed("rect", "class=\"hit\" \(box(x: x, y: 0, width: width, height: laneHeight))", detail: detail)
            start = end
        }
    }

    private static func percent(_ level: Double) -> String {
        String(Int((level * 100).rounded())) + "%"
    }

    private static func seconds(_ value: Double) -> String {
        value < unlimited ? TimelineClock.duration(value) : "unlimited"
    }
}
