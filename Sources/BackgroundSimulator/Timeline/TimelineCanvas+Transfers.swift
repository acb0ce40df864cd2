extension TimelineCanvas {
    /// Draws an app's transfers lane: one sub-row per transfer while others overlap it, its
    /// waits hatched grey, its runs blue, and a cap at its end (green completed, red failed).
    mutating func drawTransfers(_ transfers: [TimelineTransfer], id: String, description: String) {
        let spans = transfers.map { transfer in
            TimelineBar(name: transfer.name, start: transfer.extent.start, end: transfer.extent.end, outcome: .ended)
        }
        let (rows, placed) = Self.stack(spans, scale: scale, maximumRows: options.maximumStackRows)
        outsideCount += transfers.count - placed.count
        let rowHeight = rows <= 3 ? 14.0 : rows <= 5 ? 10.0 : 7.0
        let laneHeight = Double(max(rows, 1)) * rowHeight + 4
        beginLane(
            id: id,
            name: "transfers",
            description: rows > 1 ? "\(description), \(rows) rows" : description,
            height: laneHeight
        )
        for place in placed {
            let transfer = transfers[place.index]
            let y = 2 + Double(place.row) * rowHeight
            for segment in transfer.segments where scale.overlaps(segment.start, segment.end) {
                let (x, width) = scale.extent(segment.start, segment.end)
                let start = scale.time(min(segment.start, segment.end))
                let end = scale.time(max(segment.start, segment.end))
                let detail =
                    transfer.name + " \u{2014} " + segment.phase.rawValue + "\n" + clock.range(start, end)
                    + (segment.detail.isEmpty ? "" : "\n" + segment.detail)
                let geometry = box(x: x, y: y, width: width, height: rowHeight - 2)
                detailed("rect", "class=\"xfer xfer-\(segment.phase.rawValue)\" \(geometry)", detail: detail)
            }
            if let outcome = transfer.outcome, scale.contains(transfer.extent.end) {
                let x = scale.x(scale.time(transfer.extent.end))
                let geometry = box(x: max(0, x - 3), y: y, width: 3, height: rowHeight - 2)
                let detail =
                    transfer.name + " \u{2014} " + outcome.rawValue + "\n" + clock.point(transfer.extent.end) + "\n"
                    + transfer.detail
                detailed("rect", "class=\"xfer xfer-\(outcome.rawValue)\" \(geometry)", detail: detail)
            }
            if rowHeight >= 14, place.width >= 40,
                let text = TimelineMarkup.truncated(transfer.name, toFit: place.width - 8)
            {
                label(text, x: place.x + 4, y: y + rowHeight / 2 + 2.5, classes: "in halo")
            }
        }
        endLane()
    }
}
