import Foundation

/// The operator console's charts, drawn on the server as SVG rather than by a script in the
/// browser: the console works with JavaScript off and under a CSP of `style-src 'self'`, so
/// shapes are placed with SVG attributes alone and coloured by classes from console.css.
/// Each SVG is only a picture (`role="img"` with a one-sentence `<title>`); the table beside
/// it carries the exact numbers, for screen readers, for copying, and for reading a value
/// off a bar too thin to judge.
enum ConsoleCharts {
    /// One stacked series: a name shown in the legend and table header, a CSS class that colours it (e.g. "s-passkey"), and one value per label.
    struct Series {
        let name: String
        let cssClass: String
        let values: [Int64]
    }

    /// The stacked chart's viewBox, with room on the left for the y labels and below for the
    /// x labels. The SVG scales to its box, so these are proportions rather than pixels.
    private enum Plot {
        static let width = 900.0, height = 240.0
        static let left = 44.0, right = 6.0, top = 8.0, bottom = 22.0
    }

    /// A vertical stacked bar chart: one bar per label (e.g. 30 days, labels like "11-02"), the series stacked in the given order.
    static func stackedBars(id: String, title: String, labels: [String], series: [Series]) -> String {
        let totals = labels.indices.map { day in series.reduce(Int64(0)) { $0 + value($1.values, day) } }
        let axisMax = niceAxisMax(totals.max() ?? 0)
        let plotWidth = Plot.width - Plot.left - Plot.right, plotHeight = Plot.height - Plot.top - Plot.bottom
        let baseline = Plot.top + plotHeight
        let slot = plotWidth / Double(max(labels.count, 1))
        var shapes = ""
        // The baseline and four gridlines; `axisMax` is four whole steps, so every label is an integer.
        for step in 0...4 {
            let y = baseline - plotHeight * Double(step) / 4
            shapes += "<line class=\"\(step == 0 ? "axis-line" : "grid-line")\" x1=\"\(num(Plot.left))\" y1=\"\(num(y))\""
                + " x2=\"\(num(Plot.width - Plot.right))\" y2=\"\(num(y))\"/>"
                + text(axisMax / 4 * Int64(step), x: Plot.left - 4, y: y + 3, anchor: "end")
        }
        for (day, label) in labels.enumerated() {
            let x = Plot.left + slot * (Double(day) + 0.15)
            var top = baseline
            for item in series where value(item.values, day) > 0 {
                let count = value(item.values, day)
                let height = plotHeight * Double(count) / Double(axisMax)
                top -= height
                // The per-segment <title> is a hover tooltip; assistive technology reads the table.
                shapes += "<rect class=\"\(HTML.escape(item.cssClass))\" x=\"\(num(x))\" y=\"\(num(top))\" width=\"\(num(slot * 0.7))\""
                    + " height=\"\(num(height))\"><title>\(HTML.escape("\(label) \(item.name): \(count)"))</title></rect>"
            }
            // Every fifth label only: thirty would overlap at any width a phone gives them.
            if day % 5 == 0 { shapes += text(label, x: x + slot * 0.35, y: Plot.height - 6, anchor: "middle") }
        }
        let sums = series.map { item in labels.indices.reduce(Int64(0)) { $0 + value(item.values, $1) } }
        let grand = sums.reduce(0, +)
        let summary = grand == 0
            ? "No data for the \(labels.count) days shown."
            : zip(series, sums).map { "\($0.name) \($1)" }.joined(separator: ", ") + "; \(grand) in total over \(labels.count) days."
        let rows = labels.enumerated().map { day, label in [label] + series.map { "\(value($0.values, day))" } + ["\(totals[day])"] }
        return figure(id: id, title: title, body: svg(id: id, width: Plot.width, height: Plot.height, summary: summary, shapes: shapes)
            + legend(series.map { ($0.name, $0.cssClass) })
            // A day's row each: folded, so that the page stays short; open, or read by a
            // screen reader, it holds every figure the bars show.
            + "<details class=\"chart-details\"><summary>The figures of each day</summary>"
            + table(caption: title, header: ["Day"] + series.map(\.name) + ["Total"], rows: rows) + "</details>")
    }

    /// A horizontal ranked bar chart (rows already sorted by the caller, largest first), each row: label text, bar (rect width proportional to value / max), value text.
    static func rankedBars(id: String, title: String, rows: [(label: String, value: Int64)], labelHeader: String, valueHeader: String) -> String {
        guard let first = rows.first else { return figure(id: id, title: title, body: "<p class=\"empty\">No data in this period.</p>") }
        let rowHeight = 22.0, labelWidth = 180.0, valueWidth = 60.0, width = 600.0
        let largest = max(rows.map(\.value).max() ?? 0, 1)
        var shapes = ""
        for (index, row) in rows.enumerated() {
            let y = Double(index) * rowHeight + 4
            let barWidth = (width - labelWidth - valueWidth) * Double(max(row.value, 0)) / Double(largest)
            // Long names are cut in the picture only; the table holds them in full.
            let shown = row.label.count > 28 ? String(row.label.prefix(27)) + "…" : row.label
            shapes += text(shown, x: labelWidth - 6, y: y + 13, anchor: "end", cssClass: "bar-label")
                + "<rect class=\"bar\" x=\"\(num(labelWidth))\" y=\"\(num(y + 2))\" width=\"\(num(barWidth))\" height=\"\(num(rowHeight - 6))\"/>"
                + text(row.value, x: labelWidth + barWidth + 4, y: y + 13, anchor: "start", cssClass: "bar-label")
        }
        let summary = "\(rows.count) \(rows.count == 1 ? "entry" : "entries"); the largest is \(first.label) with \(first.value)."
        return figure(id: id, title: title, body: svg(id: id, width: width, height: Double(rows.count) * rowHeight + 8, summary: summary, shapes: shapes)
            + table(caption: title, header: [labelHeader, valueHeader], rows: rows.map { [$0.label, "\($0.value)"] }))
    }

    /// A single 100% horizontal bar split into parts (e.g. synced vs device-bound), with a legend and a table (label, count, percent with one decimal).
    static func share(id: String, title: String, parts: [(label: String, value: Int64, cssClass: String)]) -> String {
        let total = parts.reduce(Int64(0)) { $0 + max($1.value, 0) }
        guard total > 0 else { return figure(id: id, title: title, body: "<p class=\"empty\">No data in this period.</p>") }
        let width = 600.0
        var shapes = "", left = 0.0
        for part in parts where part.value > 0 {
            let partWidth = width * Double(part.value) / Double(total)
            shapes += "<rect class=\"\(HTML.escape(part.cssClass))\" x=\"\(num(left))\" y=\"0\" width=\"\(num(partWidth))\" height=\"28\">"
                + "<title>\(HTML.escape("\(part.label): \(part.value) (\(percent(part.value, of: total)))"))</title></rect>"
            left += partWidth
        }
        let summary = parts.map { "\($0.label) \($0.value) (\(percent($0.value, of: total)))" }.joined(separator: ", ") + " of \(total)."
        return figure(id: id, title: title, body: svg(id: id, width: width, height: 28, summary: summary, shapes: shapes)
            + legend(parts.map { ("\($0.label) \(percent($0.value, of: total))", $0.cssClass) })
            + table(caption: title, header: ["Kind", "Count", "Percent"],
                    rows: parts.map { [$0.label, "\($0.value)", percent($0.value, of: total)] }))
    }

    // MARK: - Pieces

    /// The chart's outer element; its caption names it for everyone, the SVG title summarises it.
    private static func figure(id: String, title: String, body: String) -> String {
        "<figure class=\"chart\" id=\"\(HTML.escape(id))\"><figcaption>\(HTML.escape(title))</figcaption>\(body)</figure>"
    }

    /// The picture: one image to assistive technology, named by its summary sentence. The
    /// title's id carries the chart's id so that several charts on a page stay distinct.
    private static func svg(id: String, width: Double, height: Double, summary: String, shapes: String) -> String {
        let titleID = HTML.escape(id + "-title")
        return "<svg role=\"img\" aria-labelledby=\"\(titleID)\" viewBox=\"0 0 \(num(width)) \(num(height))\" class=\"chart-svg\">"
            + "<title id=\"\(titleID)\">\(HTML.escape(summary))</title>\(shapes)</svg>"
    }

    /// A `<text>` element; the value is escaped, so callers pass labels as they are.
    private static func text(_ value: some CustomStringConvertible, x: Double, y: Double, anchor: String, cssClass: String = "axis-label") -> String {
        "<text class=\"\(cssClass)\" x=\"\(num(x))\" y=\"\(num(y))\" text-anchor=\"\(anchor)\">\(HTML.escape(value.description))</text>"
    }

    /// The colour key: a swatch (decoration, hidden from screen readers) and the name.
    private static func legend(_ entries: [(name: String, cssClass: String)]) -> String {
        "<ul class=\"legend\">" + entries.map {
            "<li><span class=\"swatch \(HTML.escape($0.cssClass))\" aria-hidden=\"true\"></span>\(HTML.escape($0.name))</li>"
        }.joined() + "</ul>"
    }

    /// The text equivalent: the first cell of each row is its header. Every cell is escaped
    /// here. Wrapped for horizontal scrolling, since a wide table must not widen a phone's page.
    private static func table(caption: String, header: [String], rows: [[String]]) -> String {
        let head = header.map { "<th scope=\"col\">\(HTML.escape($0))</th>" }.joined()
        let body = rows.map { cells in
            "<tr>" + cells.enumerated().map { $0 == 0 ? "<th scope=\"row\">\(HTML.escape($1))</th>" : "<td>\(HTML.escape($1))</td>" }.joined() + "</tr>"
        }.joined()
        return "<div class=\"table-scroll\"><table class=\"chart-table\"><caption class=\"visually-hidden\">\(HTML.escape(caption))</caption>"
            + "<thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div>"
    }

    /// The value at `index`, or 0 where a series is shorter than the labels; negatives count as 0.
    private static func value(_ values: [Int64], _ index: Int) -> Int64 {
        index < values.count ? max(values[index], 0) : 0
    }

    /// The y-axis top: four gridline steps of 1, 2 or 5 × 10^n that reach `maximum`, so each
    /// label is a whole number. At least 4, so an empty chart still draws its axis.
    private static func niceAxisMax(_ maximum: Int64) -> Int64 {
        let needed = max(maximum / 4 + (maximum % 4 == 0 ? 0 : 1), 1)
        var magnitude: Int64 = 1
        while magnitude <= Int64.max / 50 {
            for step in [1, 2, 5] as [Int64] where step * magnitude >= needed { return 4 * step * magnitude }
            magnitude *= 10
        }
        return maximum
    }

    /// A viewBox coordinate with at most one decimal, by integer arithmetic: a number
    /// formatter per attribute would cost more than drawing the chart.
    private static func num(_ x: Double) -> String {
        let tenths = Int((x * 10).rounded()), whole = abs(tenths) / 10, fraction = abs(tenths) % 10
        return (tenths < 0 ? "-" : "") + (fraction == 0 ? "\(whole)" : "\(whole).\(fraction)")
    }

    /// `value` as a share of `total` with one decimal, e.g. "62.5%".
    private static func percent(_ value: Int64, of total: Int64) -> String {
        let tenths = total > 0 ? Int64((Double(max(value, 0)) * 1000 / Double(total)).rounded()) : 0
        return "\(tenths / 10).\(tenths % 10)%"
    }
}
