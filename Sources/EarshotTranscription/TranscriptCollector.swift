import EarshotCore

extension BatchTranscriber {
    /// Gathers segments as they finish, in any order; hands out each recording's segments in order as
    /// they become contiguous, and whole recordings in input order.
    struct Collector {
        private struct Recording {
            var description: InputDescription?
            var segmentCount: Int?
            var duration = 0.0
            var segments: [Int: TranscribedSegment] = [:]
            var failedSegments: [Int: (span: Range<MediaTime>, error: EarshotError)] = [:]
            var readError: EarshotError?
            /// Segments handed out as `.segment` events so far (a prefix of the recording).
            var streamed = 0

            var isComplete: Bool {
                readError != nil || segmentCount.map { segments.count + failedSegments.count == $0 } ?? false
            }

            /// Why the recording cannot be delivered, if it cannot: the read error, or the failed
            /// segments' time ranges grouped by their error.
            var error: EarshotError? {
                if let readError { return readError }
                let failures = failedSegments.keys.sorted().map { failedSegments[$0]! }
                guard let first = failures.first else { return nil }
                if failures.count == 1 {
                    return EarshotError(first.error.code, "segment \(first.span.readable): \(first.error.message)")
                }
                var groups: [(message: String, spans: [Range<MediaTime>])] = []
                for failure in failures {
                    if let group = groups.firstIndex(where: { $0.message == failure.error.message }) {
                        groups[group].spans.append(failure.span)
                    } else {
                        groups.append((failure.error.message, [failure.span]))
                    }
                }
                let causes = groups.map { group in
                    let shown = group.spans.prefix(8).map(\.readable).joined(separator: ", ")
                    let more = group.spans.count > 8 ? " and \(group.spans.count - 8) more" : ""
                    return "\(shown)\(more): \(group.message)"
                }
                return EarshotError(
                    first.error.code,
                    "\(failures.count) of \(segmentCount ?? 0) segments failed — \(causes.joined(separator: "; "))")
            }
        }

        private var recordings: [Int: Recording] = [:]
        private var next = 0
        private var doneSeconds = 0.0
        /// The known length of everything opened so far, or nil once one has no known length.
        private var totalSeconds: Double? = 0

        /// Records `message`, then hands `handle` progress and every recording now complete, in order.
        mutating func receive(_ message: Message, handle: (Event) throws -> Void) throws {
            switch message {
            case .opened(let input, let description):
                recordings[input, default: Recording()].description = description
                totalSeconds = totalSeconds.flatMap { total in description.duration.map { total + $0 } }
            case .read(let input, let segmentCount, let duration):
                recordings[input, default: Recording()].segmentCount = segmentCount
                recordings[input, default: Recording()].duration = duration
            case .readFailed(let input, let error):
                recordings[input, default: Recording()].readError = error
            case .segmentFailed(let input, let index, let span, let error):
                recordings[input, default: Recording()].failedSegments[index] = (span, error)
                doneSeconds += span.upperBound.seconds - span.lowerBound.seconds
                try handle(.progress(doneSeconds: doneSeconds, totalSeconds: totalSeconds))
            case .segment(let input, let index, let segment):
                recordings[input, default: Recording()].segments[index] = segment
                doneSeconds += (segment.end.seconds - segment.start.seconds)
                try handle(.progress(doneSeconds: doneSeconds, totalSeconds: totalSeconds))
            case .fatal, .finished:
                return
            }
            try deliverReady(handle)
        }

        private mutating func deliverReady(_ handle: (Event) throws -> Void) throws {
            while var recording = recordings[next] {
                while let segment = recording.segments[recording.streamed] {
                    try handle(.segment(index: next, segment: segment))
                    recording.streamed += 1
                }
                recordings[next] = recording
                guard recording.isComplete else { return }
                recordings[next] = nil
                if let error = recording.error {
                    try handle(.failed(index: next, name: recording.description?.name, error: error))
                } else if let description = recording.description {
                    let segments = (0..<recording.segments.count).map { recording.segments[$0]! }
                    try handle(
                        .transcribed(
                            index: next,
                            transcript: Transcript(
                                recording: description, duration: recording.duration, segments: segments)))
                }
                next += 1
            }
        }
    }
}
