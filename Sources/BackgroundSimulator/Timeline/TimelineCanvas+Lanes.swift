extension TimelineCanvas {
    /// The lifecycle states with a colour of their own; other labels are drawn as `st-other`.
    static let knownStates = ["notRunning", "active", "inactive", "background", "suspended", "terminated"]
    /// The states drawn on a dark colour, whose label is written in white.
    private static let darkStates: Set<String> = ["active", "background", "terminated"]

    /// The number of lanes each app has: state, assertions, tasks, budget, events (and modes,
    /// for an app that held any; transfers, for an app that had any).
    static let lanesPerApp = 5
    /// The number of lanes the device section has: battery, network, events.
    static let deviceLanes = 3

    /// Draws the device section: battery, network and device events.
    mutating func drawDevice(_ document: TimelineDocument) {
        section("Device", detail: "Device: battery, network and device events")
        drawBattery(document.battery)
        drawSpans(
            document.network,
            id: "device-network",
            name: "network",
            description: "Network, \(document.network.count) spans",
            style: Self.networkStyle
        )
        drawMarkers(
            document.deviceMarkers,
            id: "device-events",
            name: "events",
            description: "Device events, \(document.deviceMarkers.count) markers",
            isDevice: true
        )
    }

    /// Draws one app's section: lifecycle states, assertions, tasks, budget and events.
    mutating func drawApp(_ app: AppTimeline, index: Int) {
        section(app.id, detail: app.id + "\n" + Self.summary(of: app))
        let prefix = "app-\(index)-"
        drawSpans(
            app.states,
            id: prefix + "state",
            name: "state",
            description: "\(app.id): lifecycle states, \(app.states.count) spans",
            style: Self.stateStyle
        )
        if !app.modes.isEmpty {
            drawSpans(
                app.modes.sorted { ($0.start, $0.label) < ($1.start, $1.label) },
                id: prefix + "modes",
                name: "modes",
                description: "\(app.id): background modes keeping it running, \(app.modes.count) spans",
                style: { _ in ("mode-held", "in") }
            )
        }
        if !app.transfers.isEmpty {
            drawTransfers(
                app.transfers,
                id: prefix + "transfers",
                description: "\(app.id): background transfers, \(app.transfers.count) transfers"
            )
        }
        drawBars(
            app.assertions,
            id: prefix + "assertions",
            name: "assertions",
            description: "\(app.id): background task assertions, \(app.assertions.count) bars"
        )
        drawBars(
            app.tasks,
            id: prefix + "tasks",
            name: "tasks",
            description: "\(app.id): background tasks, \(app.tasks.count) bars"
        )
        drawBudget(app.budget, id: prefix + "budget", description: "\(app.id): background time remaining")
        drawMarkers(
            app.markers,
            id: prefix + "events",
            name: "events",
            description: "\(app.id): events, \(app.markers.count) markers",
            isDevice: false
        )
    }

    /// One line about an app, for the tooltip on its name: `"3 assertions (1 leaked) · 2 tasks · 1 event"`.
    static func summary(of app: AppTimeline) -> String {
        func counted(_ bars: [TimelineBar], _ noun: String, notable: [TimelineBar.Outcome]) -> String {
            let notes = notable.compactMap { outcome -> String? in
                let count = bars.count { $0.outcome == outcome }
                return count == 0 ? nil : "\(count) \(outcome.rawValue)"
            }
            let text = "\(bars.count) \(noun)\(bars.count == 1 ? "" : "s")"
            return notes.isEmpty ? text : text + " (" + notes.joined(separator: ", ") + ")"
        }
        let events = "\(app.markers.count) event\(app.markers.count == 1 ? "" : "s")"
        return counted(app.assertions, "assertion", notable: [.leaked, .expired, .open]) + " \u{B7} "
            + counted(app.tasks, "task", notable: [.failed, .killed, .running]) + " \u{B7} " + events
    }

    /// The fill and text classes of a lifecycle state.
    static func stateStyle(_ label: String) -> (fill: String, text: String) {
        guard knownStates.contains(label) else { return ("st-other", "in") }
        return ("st-" + label, darkStates.contains(label) ? "in light" : "in")
    }

    /// The fill and text classes of a network: Wi-Fi, cellular, none, or another.
    static func networkStyle(_ label: String) -> (fill: String, text: String) {
        let name = label.lowercased()
        if name.hasPrefix("wifi") || name.hasPrefix("wi-fi") || name.hasPrefix("wlan") { return ("net-wifi", "in") }
        if name.hasPrefix("cellular") || name.hasPrefix("cell") { return ("net-cell", "in light") }
        if name.hasPrefix("none") || name.hasPrefix("offline") || name.hasPrefix("no ") { return ("net-none", "in") }
        return ("net-other", "in")
    }

    /// Draws a lane of labelled spans, adjacent spans with the same label merged into one.
    mutating func drawSpans(
        _ spans: [TimelineSpan],
        id: String,
        name: String,
        description: String,
        style: (String) -> (fill: String, text: String)
    ) {
        let laneHeight = 18.0
        beginLane(id: id, name: name, description: description, height: laneHeight)
        let inside = spans.filter { scale.overlaps($0.start, $0.end) }
        outsideCount += spans.count - inside.count
        for span in Self.merged(inside, scale: scale) {
            let (x, width) = scale.extent(span.start, span.end)
            let classes = style(span.label)
            let detail =
                span.label + "\n" + clock.range(span.start, span.end) + (span.detail.isEmpty ? "" : "\n" + span.detail)
            let geometry = box(x: x, y: 2, width: width, height: laneHeight - 4)
            detailed("rect", "class=\"\(classes.fill)\" \(geometry)", detail: detail)
            if width >= 26, let text = TimelineMarkup.wholeLabel(span.label, toFit: width - 8) {
                label(text, x: x + 4, y: laneHeight / 2 + 3.5, classes: classes.text)
            }
        }
        endLane()
    }

    /// `spans` (all overlapping the run) clamped to it and sorted by start, with touching spans of the same label merged (their details
    /// joined, at most three, then a count).
    static func merged(_ spans: [TimelineSpan], scale: TimelineScale) -> [TimelineSpan] {
        let clamped = spans.map { span in
            let (a, b) = (scale.time(span.start), scale.time(span.end))
            return TimelineSpan(start: min(a, b), end: max(a, b), label: span.label, detail: span.detail)
        }
        let order = clamped.indices.sorted { (clamped[$0].start, $0) < (clamped[$1].start, $1) }
        var result: [TimelineSpan] = []
        var details: [String] = []
        var extra = 0
        func flush(into result: inout [TimelineSpan]) {
            guard var last = result.popLast() else { return }
            last.detail = details.joined(separator: "\n") + (extra > 0 ? "\n(and \(extra) more merged spans)" : "")
            result.append(last)
        }
        for index in order {
            let span = clamped[index]
            if let last = result.last, last.label == span.label, span.start <= last.end + 1e-9 {
                result[result.count - 1].end = max(last.end, span.end)
                if details.count < 3 {
                    if !span.detail.isEmpty && !details.contains(span.detail) { details.append(span.detail) }
                } else {
                    extra += 1
                }
                continue
            }
            flush(into: &result)
            result.append(span)
            details = span.detail.isEmpty ? [] : [span.detail]
            extra = 0
        }
        flush(into: &result)
        return result
    }

    /// Draws a lane of markers: a line with a head at each, a label where there is room (in two rows).
    mutating func drawMarkers(
        _ markers: [TimelineMarker],
        id: String,
        name: String,
        description: String,
        isDevice: Bool
    ) {
        let laneHeight = 28.0
        beginLane(id: id, name: name, description: description, height: laneHeight)
        let order = markers.indices.filter { scale.contains(markers[$0].time) }
            .sorted { (markers[$0].time, $0) < (markers[$1].time, $1) }
        outsideCount += markers.count - order.count
        var rowEnds = [-Double.infinity, -Double.infinity]
        for index in order {
            let marker = markers[index]
            let t = scale.time(marker.time)
            let x = scale.x(t)
            let detail = marker.label + "\n" + clock.point(t) + (marker.detail.isEmpty ? "" : "\n" + marker.detail)
            let (left, middle) = (TimelineMarkup.number(x - 4), TimelineMarkup.number(x))
            let content =
                "<rect class=\"hit\" x=\"\(left)\" y=\"0\" width=\"8\" height=\"\(TimelineMarkup.number(laneHeight))\"/>"
                + "<path d=\"M\(middle) 2V\(TimelineMarkup.number(laneHeight))M\(left) 1h8l-4 6z\"/>"
            detailed("g", "class=\"mk mk-\(marker.severity.rawValue)\"", detail: detail, content: content)
            if isDevice && marker.severity == .fault { addFaultLine(at: x) }
            placeMarkerLabel(marker.label, severity: marker.severity, x: x, rowEnds: &rowEnds)
        }
        endLane()
    }

    /// Writes a marker's label right of it (or left, at the plot's right edge) in the first row where it does not
    /// overlap the previous label; leaves it out when neither row has room (the detail still has it).
    private mutating func placeMarkerLabel(
        _ text: String,
        severity: TimelineMarker.Severity,
        x: Double,
        rowEnds: inout [Double]
    ) {
        guard let shown = TimelineMarkup.truncated(text, toFit: 180) else { return }
        let width = TimelineMarkup.estimatedWidth(shown)
        let classes = "mk-label mk-label-\(severity.rawValue)"
        for row in rowEnds.indices {
            let y = row == 0 ? 12.0 : 24.0
            if x + 6 + width <= scale.width, rowEnds[row] + 8 <= x + 6 {
                label(shown, x: x + 6, y: y, classes: classes)
                rowEnds[row] = x + 6 + width
                return
            }
            if x + 6 + width > scale.width, x - 6 - width >= 0, rowEnds[row] + 8 <= x - 6 - width {
                label(shown, x: x - 6, y: y, classes: classes, anchorEnd: true)
                rowEnds[row] = x
                return
            }
        }
    }
}
