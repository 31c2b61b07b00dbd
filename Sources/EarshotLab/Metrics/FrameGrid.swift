/// The 10 ms grid every frame metric is computed on, whatever the detector's own hop.
///
/// Cell *i* covers [10·i, 10·(i+1)) ms; a file of duration *d* has the cells whose midpoint lies
/// before *d*. A cell takes the value of whatever covers its midpoint — a labelled segment, a
/// predicted segment, a detector frame — which for a single boundary is the same as "more than half
/// the cell". This is also the layout of `earshot vad --format probs` and of `NAME.prob` files.
public enum FrameGrid {
    /// The grid's step: 10 ms.
    public static let cellDuration = 0.01

    /// The number of cells for a file of `duration` seconds.
    public static func cellCount(duration: Double) -> Int {
        guard duration > 0 else { return 0 }
        // Cells whose midpoint (i + 0.5) · 10 ms is before the end.
        return Int((duration / cellDuration - 0.5).rounded(.up))
    }

    /// The midpoint of cell `index`, in seconds.
    @inlinable
    public static func midpoint(ofCell index: Int) -> Double { (Double(index) + 0.5) * cellDuration }

    /// Whether each cell's midpoint lies inside one of `segments` (sorted, non-overlapping).
    public static func labels(_ segments: [LabeledSegment], cellCount: Int) -> [Bool] {
        var labels = [Bool](repeating: false, count: cellCount)
        var next = 0
        for cell in 0..<cellCount {
            let time = midpoint(ofCell: cell)
            while next < segments.count && segments[next].end <= time { next += 1 }
            if next < segments.count && segments[next].start <= time { labels[cell] = true }
        }
        return labels
    }

    /// The value of the span covering each cell's midpoint; cells no span covers get `outside`.
    ///
    /// `spans` are sorted by start and do not overlap, like the frames of a detector.
    public static func values(
        _ spans: [(start: Double, end: Double, value: Float)], cellCount: Int, outside: Float = 0
    ) -> [Float] {
        var values = [Float](repeating: outside, count: cellCount)
        var next = 0
        for cell in 0..<cellCount {
            let time = midpoint(ofCell: cell)
            while next < spans.count && spans[next].end <= time { next += 1 }
            if next < spans.count && spans[next].start <= time { values[cell] = spans[next].value }
        }
        return values
    }

    /// Speech segments from per-cell decisions: each run of `true` cells becomes one segment.
    public static func segments(from decisions: [Bool]) -> [LabeledSegment] {
        var segments: [LabeledSegment] = []
        var runStart: Int?
        for (cell, isSpeech) in decisions.enumerated() {
            if isSpeech, runStart == nil { runStart = cell }
            if !isSpeech, let start = runStart {
                segments.append(LabeledSegment(start: Double(start) * cellDuration, end: Double(cell) * cellDuration))
                runStart = nil
            }
        }
        if let start = runStart {
            segments.append(
                LabeledSegment(start: Double(start) * cellDuration, end: Double(decisions.count) * cellDuration))
        }
        return segments
    }
}
