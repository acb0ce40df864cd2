extension TimelineRenderer {
    /// The groups of the legend: a heading, then each key's swatch (an SVG fragment) and its text.
    private static let legendGroups: [(title: String, keys: [(swatch: String, text: String)])] = [
        ("Lifecycle", TimelineCanvas.knownStates.map { (box("st-" + $0), $0) } + [(box("st-other"), "other")]),
        ("Assertions", ["ended", "expired", "leaked", "open"].map { (box("bar o-" + $0), $0) }),
        ("Tasks", ["succeeded", "failed", "killed", "running"].map { (box("bar o-" + $0), $0) }),
        ("Transfers", TimelineTransfer.legendKeys.map { (box("xfer xfer-" + $0), $0) }),
        (
            "Network",
            [("net-wifi", "Wi-Fi"), ("net-cell", "cellular"), ("net-none", "none"), ("net-other", "other")]
                .map { (box($0.0), $0.1) }
        ),
        (
            "Battery",
            [
                (box("draining-area") + line("draining-line", y: 2), "on battery"),
                (box("charging-area") + line("charging-line", y: 2), "charging"),
                (box("lpm", height: 4), "Low Power Mode"),
            ]
        ),
        (
            "Budget",
            [
                (box("budget-area") + line("budget-line", y: 2), "time remaining"),
                (line("budget-limit", y: 5), "limit"),
                (box("unlimited-area"), "unlimited (foreground)"),
            ]
        ),
        (
            "Events",
            ["info", "warning", "fault"].map {
                ("<g class=\"mk mk-\($0)\"><path d=\"M8 2V12M4 1h8l-4 6z\"/></g>", $0)
            }
        ),
    ]

    private static func box(_ classes: String, height: Int = 10) -> String {
        "<rect class=\"\(classes)\" x=\"1\" y=\"1\" width=\"16\" height=\"\(height)\" rx=\"2\"/>"
    }

    private static func line(_ classes: String, y: Int) -> String {
        "<path class=\"\(classes)\" d=\"M1 \(y)H17\"/>"
    }

    /// The whole page around the canvas.
    static func page(for document: TimelineDocument, canvas: TimelineCanvas, axis: TimelineAxis) -> String {
        let number = TimelineMarkup.number
        let scale = canvas.scale
        let expectedLanes = canvas.laneCount + 1
        let expectedDetails = canvas.detailCount
        var html = ""
        html.reserveCapacity(canvas.plot.utf8.count + canvas.labels.utf8.count + 40_000)
        html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"BackgroundSimulator TimelineRenderer\">\n"
        html += "<title>\(TimelineMarkup.escaped(document.title))</title>\n"
        html += "<style>\n\(stylesheet)</style>\n<script>\n\(errorHook)</script>\n</head>\n<body>\n"
        html += "<main id=\"timeline\" class=\"tl\" style=\"width:\(canvas.options.width)px\""
        html += " data-local-origin=\"\(TimelineMarkup.fixed(canvas.clock.localOrigin, places: 3))\""
        html += " data-duration=\"\(TimelineMarkup.fixed(scale.duration, places: 3))\""
        html += " data-px-per-second=\"\(TimelineMarkup.fixed(scale.pixelsPerSecond, places: 9))\""
        html += " data-expected-lanes=\"\(expectedLanes)\" data-expected-details=\"\(expectedDetails)\">\n"
        html += header(for: document, canvas: canvas)
        html += legend()
        let height = number(max(canvas.height, 1))
        let width = number(scale.width)
        let labelWidth = number(canvas.labelWidth)
        html += "<div class=\"tl-scroll\"><div class=\"tl-grid\" style=\"grid-template-columns:"
        html += "\(labelWidth)px \(width)px\">\n"
        html += "<div class=\"tl-corner\"><span class=\"tl-corner-day\">day 1 \u{B7} \(canvas.clock.date(0))</span>"
        html += "<span>\(TimelineMarkup.escaped(canvas.clock.offsetText))</span></div>\n"
        html += svgOpen("tl-axis", width: width, height: number(TimelineAxis.height), label: "Time axis")
        html += axis.svg() + "</svg>\n"
        html += svgOpen("tl-labels", width: labelWidth, height: height, label: "Lane names")
        html += canvas.labels + "</svg>\n"
        html += svgOpen("tl-plot", width: width, height: height, label: "Timeline lanes")
        html += patterns + canvas.underlay + axis.grid(height: canvas.height, faults: canvas.faultLines)
        html += canvas.rulePath + "\n" + canvas.plot
        html += "<line class=\"tl-cursor\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"\(height)\" visibility=\"hidden\"/>"
        html += "</svg>\n</div></div>\n"
        html += footer(canvas: canvas, axis: axis)
        html += "</main>\n<div id=\"tl-tip\" class=\"tl-tip\" role=\"tooltip\" hidden></div>\n"
        html += "<script>\n\(script)</script>\n</body>\n</html>\n"
        return html
    }

    private static func svgOpen(_ classes: String, width: String, height: String, label: String) -> String {
        "<svg class=\"\(classes)\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(width) \(height)\" preserveAspectRatio=\"xMinYMin meet\" role=\"group\" "
            + "aria-label=\"\(label)\">"
    }

    /// The hatching of bars still open or running at the end of the run.
    private static let patterns = """
        <defs><pattern id="tl-hatch-open" width="6" height="6" patternUnits="userSpaceOnUse" \
        patternTransform="rotate(45)"><rect width="6" height="6" fill="#dfe3fb"/><rect width="3" height="6" \
        fill="#6674d9"/></pattern><pattern id="tl-hatch-running" width="6" height="6" patternUnits="userSpaceOnUse" \
        patternTransform="rotate(45)"><rect width="6" height="6" fill="#d7ecfb"/><rect width="3" height="6" \
        fill="#2d8fd5"/></pattern><pattern id="tl-hatch-none" width="6" height="6" patternUnits="userSpaceOnUse" \
        patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4f5f7"/><rect width="1.5" height="6" \
        fill="#d5dae0"/></pattern></defs>

        """

    /// The title, the subtitle, and a line with the run's length, start and counts.
    private static func header(for document: TimelineDocument, canvas: TimelineCanvas) -> String {
        let clock = canvas.clock
        let bars = document.apps.reduce(0) { $0 + $1.assertions.count + $1.tasks.count }
        let apps = document.apps.count
        var facts = [
            TimelineClock.duration(canvas.scale.duration),
            "from " + clock.date(0, year: true) + " " + clock.timeOfDay(0, seconds: true) + " " + clock.offsetText,
            "\(apps) app\(apps == 1 ? "" : "s")",
            "\(bars) assertion\(bars == 1 ? "" : "s") and tasks",
        ]
        if canvas.scale.width > canvas.options.maximumPlotWidth - 1 {
            facts.append("compressed to \(Int(canvas.scale.width)) px")
        }
        var html = "<header><h1>\(TimelineMarkup.escaped(document.title))</h1>\n"
        if !document.subtitle.isEmpty {
            html += "<p class=\"tl-sub\">\(TimelineMarkup.escaped(document.subtitle))</p>\n"
        }
        html += "<p class=\"tl-meta\">\(TimelineMarkup.escaped(facts.joined(separator: " \u{B7} ")))</p></header>\n"
        return html
    }

    /// The legend: every colour, line and marker the lanes use, grouped by lane.
    static func legend() -> String {
        var html = "<section class=\"tl-legend\" aria-label=\"Legend\">"
        for group in legendGroups {
            html += "<div class=\"tl-legend-group\"><span class=\"tl-legend-title\">\(group.title)</span>"
            for key in group.keys {
                html += "<span class=\"tl-key\"><svg class=\"sw\" width=\"18\" height=\"13\" aria-hidden=\"true\">"
                html += key.swatch + "</svg>\(TimelineMarkup.escaped(key.text))</span>"
            }
            html += "</div>"
        }
        return html + "</section>\n"
    }

    /// A line on how to read the timeline and what was simplified.
    private static func footer(canvas: TimelineCanvas, axis: TimelineAxis) -> String {
        let options = canvas.options
        let hour = TimelineMarkup.number(canvas.scale.pixelsPerSecond * 3600)
        let text =
            "Hover any span, bar, marker or chart for details. Times are wall-clock in \(canvas.clock.offsetText); "
            + "ticks every \(TimelineClock.duration(axis.step)), 1 h = \(hour) px. "
            + "Bars shorter than \(TimelineMarkup.number(canvas.scale.minimumWidth)) px are drawn that wide; "
            + "overlapping bars stack in up to \(options.maximumStackRows) rows; "
            + "touching spans with the same label are merged."
            + (canvas.outsideCount > 0 ? " \(canvas.outsideCount) elements outside the run are left out." : "")
        return "<p class=\"tl-foot\">\(TimelineMarkup.escaped(text))</p>\n"
    }
}
