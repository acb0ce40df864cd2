extension TimelineCanvas {
    /// Where a bar is drawn: its index in the input, its x extent in pixels and its sub-row.
    struct PlacedBar: Equatable {
        /// The bar's index in the array given to ``stack(_:scale:maximumRows:)``.
        let index: Int
        /// The left edge, in pixels.
        let x: Double
        /// The width, in pixels (at least the scale's minimum width).
        let width: Double
        /// The sub-row, 0 at the top.
        let row: Int
    }

    /// The outcomes drawn on a dark colour, whose label is written in white.
    private static let darkOutcomes: Set<TimelineBar.Outcome> = [.ended, .leaked, .succeeded, .failed, .killed]
    /// The outcomes drawn hatched, whose label is written with a white halo.
    private static let hatchedOutcomes: Set<TimelineBar.Outcome> = [.open, .running]

    /// Assigns each bar a sub-row so that bars that overlap on screen do not cover each other.
    ///
    /// Bars outside the run are left out. The others are taken by their drawn start (after the minimum width is applied) and each goes in the first row that is
    /// free there: for intervals this first fit uses the fewest rows. Beyond `maximumRows`, a bar goes in the row
    /// that frees up first and overlaps its last bar. The work is O(n log n + n × rows).
    ///
    /// - Returns: The number of rows used, and every bar's place in drawing order.
    static func stack(
        _ bars: [TimelineBar],
        scale: TimelineScale,
        maximumRows: Int
    ) -> (
        rows: Int, placed: [PlacedBar]
    ) {
        let extents = bars.map { scale.extent($0.start, $0.end) }
        let order = bars.indices.filter { scale.overlaps(bars[$0].start, bars[$0].end) }
            .sorted { (extents[$0].x, $0) < (extents[$1].x, $1) }
        let limit = max(maximumRows, 1)
        var rowEnds: [Double] = []
        var placed: [PlacedBar] = []
        placed.reserveCapacity(bars.count)
        for index in order {
            let (x, width) = extents[index]
            let row: Int
            if let free = rowEnds.firstIndex(where: { $0 <= x + 0.01 }) {
                row = free
            } else if rowEnds.count < limit {
                rowEnds.append(x)
                row = rowEnds.count - 1
            } else {
                row = rowEnds.indices.min { (rowEnds[$0], $0) < (rowEnds[$1], $1) } ?? 0
            }
            rowEnds[row] = max(rowEnds[row], x + width)
            placed.append(PlacedBar(index: index, x: x, width: width, row: row))
        }
        return (rowEnds.count, placed)
    }

    /// Draws a lane of bars coloured by outcome, overlapping bars stacked in sub-rows, names written where they fit.
    mutating func drawBars(_ bars: [TimelineBar], id: String, name: String, description: String) {
        let (rows, placed) = Self.stack(bars, scale: scale, maximumRows: options.maximumStackRows)
        outsideCount += bars.count - placed.count
        let rowHeight = rows <= 3 ? 14.0 : rows <= 5 ? 10.0 : 7.0
        let laneHeight = Double(max(rows, 1)) * rowHeight + 4
        let lane = rows > 1 ? "\(description), \(rows) rows" : description
        beginLane(id: id, name: name, description: lane, height: laneHeight)
        for place in placed {
            let bar = bars[place.index]
            let start = scale.time(min(bar.start, bar.end))
            let end = scale.time(max(bar.start, bar.end))
            let detail =
                bar.name + " \u{2014} " + bar.outcome.rawValue + "\n" + clock.range(start, end)
                + (bar.detail.isEmpty ? "" : "\n" + bar.detail)
            let y = 2 + Double(place.row) * rowHeight
            let geometry = box(x: place.x, y: y, width: place.width, height: rowHeight - 2)
            detailed("rect", "class=\"bar o-\(bar.outcome.rawValue)\" \(geometry) rx=\"2\"", detail: detail)
            if rowHeight >= 14, place.width >= 30, let text = TimelineMarkup.truncated(bar.name, toFit: place.width - 8)
            {
                let classes =
                    Self.darkOutcomes.contains(bar.outcome)
                    ? "in light" : Self.hatchedOutcomes.contains(bar.outcome) ? "in halo" : "in"
                label(text, x: place.x + 4, y: y + rowHeight / 2 + 2.5, classes: classes)
            }
        }
        endLane()
    }
}
