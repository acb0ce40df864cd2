/// The timeline's drawing surface. Sections and lanes are added top to bottom, each to the plot (which scrolls
/// horizontally) and to the label column (which stays in place); every element with a detail is counted so that the
/// page's script can check that the browser saw them all.
///
/// All output is appended to strings in one pass: the work is linear in the number of elements, apart from sorting.
struct TimelineCanvas {
    /// The height of a section's heading row (`Device`, then one per app).
    static let sectionHeight = 22.0

    let scale: TimelineScale
    let clock: TimelineClock
    let options: TimelineRenderer.Options
    /// The width of the label column, in pixels.
    let labelWidth: Double

    /// The plot's lanes, as SVG.
    private(set) var plot = ""
    /// The label column, as SVG.
    private(set) var labels = ""
    /// What is drawn under the grid: section bands and lane rules.
    private(set) var underlay = ""
    /// The x coordinates of device faults, drawn as lines across every lane.
    private(set) var faultLines: [Double] = []
    /// The height drawn so far.
    private(set) var height = 0.0
    /// The number of lanes drawn.
    private(set) var laneCount = 0
    /// The number of elements with a `data-detail` attribute.
    private(set) var detailCount = 0
    /// The number of spans, bars and markers left out because they lie outside the run.
    var outsideCount = 0
    private var laneHeight = 0.0
    private var rules = ""

    init(scale: TimelineScale, clock: TimelineClock, options: TimelineRenderer.Options, labelWidth: Double) {
        self.scale = scale
        self.clock = clock
        self.options = options
        self.labelWidth = labelWidth
    }

    /// The lane rules as one path, once every lane is drawn.
    var rulePath: String {
        rules.isEmpty ? "" : "<path class=\"rule\" d=\"" + rules + "\"/>"
    }

    /// Adds a section heading: a band across the plot and a bold label (truncated, with the full text on hover).
    mutating func section(_ title: String, detail: String) {
        let y = TimelineMarkup.number(height)
        let h = TimelineMarkup.number(Self.sectionHeight)
        underlay += "<rect class=\"band\" x=\"0\" y=\"\(y)\" width=\"\(TimelineMarkup.number(scale.width))\" "
        underlay += "height=\"\(h)\"/>"
        let shown = TimelineMarkup.truncated(title, toFit: labelWidth - 18, characterWidth: 7.4) ?? ""
        let full = TimelineMarkup.escaped(detail)
        labels += "<g class=\"section\" data-detail=\"\(full)\"><title>\(full)</title>"
        labels +=
            "<rect class=\"band\" x=\"0\" y=\"\(y)\" width=\"\(TimelineMarkup.number(labelWidth))\" height=\"\(h)\"/>"
        labels +=
            "<text x=\"10\" y=\"\(TimelineMarkup.number(height + 15))\">\(TimelineMarkup.escaped(shown))</text></g>"
        detailCount += 1
        height += Self.sectionHeight
    }

    /// Opens a lane `height` pixels tall: a group with its accessible description, and its name in the label column.
    ///
    /// - Parameters:
    ///   - id: The lane's `data-lane` value, unique in the page.
    ///   - name: The lane's name in the label column.
    ///   - description: The lane's `aria-label`.
    ///   - height: The lane's height in pixels.
    ///   - scaleTop: A value label at the top right of the lane's label, for charts.
    ///   - scaleBottom: A value label at the bottom right of the lane's label, for charts.
    mutating func beginLane(
        id: String,
        name: String,
        description: String,
        height laneHeight: Double,
        scaleTop: String? = nil,
        scaleBottom: String? = nil
    ) {
        self.laneHeight = laneHeight
        plot += "<g class=\"lane\" data-lane=\"\(TimelineMarkup.escaped(id))\" role=\"img\" "
        plot += "aria-label=\"\(TimelineMarkup.escaped(description))\" "
        plot += "transform=\"translate(0 \(TimelineMarkup.number(height)))\">"
        plot += "<rect class=\"lane-bg\" width=\"\(TimelineMarkup.number(scale.width))\" "
        plot += "height=\"\(TimelineMarkup.number(laneHeight))\"/>"
        let middle = TimelineMarkup.number(height + laneHeight / 2 + 4)
        labels += "<text class=\"lane-name\" x=\"22\" y=\"\(middle)\">\(TimelineMarkup.escaped(name))</text>"
        let right = TimelineMarkup.number(labelWidth - 8)
        if let scaleTop {
            let y = TimelineMarkup.number(height + 10)
            labels += "<text class=\"lane-scale\" x=\"\(right)\" y=\"\(y)\">\(TimelineMarkup.escaped(scaleTop))</text>"
        }
        if let scaleBottom {
            let y = TimelineMarkup.number(height + laneHeight - 3)
            labels +=
                "<text class=\"lane-scale\" x=\"\(right)\" y=\"\(y)\">\(TimelineMarkup.escaped(scaleBottom))</text>"
        }
    }

    /// Closes the lane opened last and moves down by its height.
    mutating func endLane() {
        plot += "</g>\n"
        height += laneHeight
        laneCount += 1
        rules += "M0 \(TimelineMarkup.number(height - 0.5))H\(TimelineMarkup.number(scale.width))"
        labels +=
            "<path class=\"rule\" d=\"M0 \(TimelineMarkup.number(height - 0.5))H\(TimelineMarkup.number(labelWidth))\"/>"
    }

    /// Appends an element with a detail, as both a `data-detail` attribute (for the page's tooltip) and a `<title>`
    /// child (the native tooltip, and the element's accessible name).
    ///
    /// - Parameters:
    ///   - element: The SVG element's name, for example `"rect"` or `"g"`.
    ///   - attributes: The element's attributes, already escaped.
    ///   - detail: The detail, unescaped.
    ///   - content: Children after the `<title>`, already escaped.
    mutating func detailed(_ element: String, _ attributes: String, detail: String, content: String = "") {
        let escaped = TimelineMarkup.escaped(detail)
        plot += "<\(element) \(attributes) data-detail=\"\(escaped)\"><title>\(escaped)</title>\(content)</\(element)>"
        detailCount += 1
    }

    /// Appends a label inside the lane, at `x`, `y`; `text` is escaped here.
    mutating func label(_ text: String, x: Double, y: Double, classes: String, anchorEnd: Bool = false) {
        let anchor = anchorEnd ? " text-anchor=\"end\"" : ""
        plot +=
            "<text class=\"\(classes)\" x=\"\(TimelineMarkup.number(x))\" y=\"\(TimelineMarkup.number(y))\"\(anchor)>"
        plot += TimelineMarkup.escaped(text) + "</text>"
    }

    /// Appends raw SVG to the open lane.
    mutating func raw(_ svg: String) {
        plot += svg
    }

    /// Records a device fault at `x`, drawn later as a line across every lane.
    mutating func addFaultLine(at x: Double) {
        faultLines.append(x)
    }

    /// The text of a rectangle's geometry attributes.
    func box(x: Double, y: Double, width: Double, height: Double) -> String {
        "x=\"\(TimelineMarkup.number(x))\" y=\"\(TimelineMarkup.number(y))\" width=\"\(TimelineMarkup.number(width))\" "
            + "height=\"\(TimelineMarkup.number(height))\""
    }
}
