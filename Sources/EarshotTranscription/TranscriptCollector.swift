import EarshotCore

extension BatchTranscriber {
    /// Gathers segments as they finish, in any order, and delivers whole recordings in input order.
    struct Collector {
        private struct Recording {
            var description: RecordingDescription?
            var segmentCount: Int?
            var duration = 0.0
            var segments: [Int: TranscribedSegment] = [:]
            var error: EarshotError?

            var isComplete: Bool { error != nil || segmentCount.map { segments.count == $0 } ?? false }
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
            case .readFailed(let input, let error), .segmentFailed(let input, _, let error):
                if recordings[input]?.error == nil { recordings[input, default: Recording()].error = error }
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
            while let recording = recordings[next], recording.isComplete {
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
