public import EarshotCore

/// Decides when to stop listening, and how the interaction ended: the seed SDK's endpointing
/// (section 4.4.6, table 5-2) as a pure state machine over ``VADDecision``s and media time.
///
/// It holds no audio and reads no clock: time is the media time the caller passes in. "Now" is the
/// newest of the decisions' `decidedAt` and the times given to ``stop(at:into:)`` and the other calls;
/// it never goes back (an earlier time is taken as now). Recording time is media time since ``start``.
///
/// Events, appended in order:
/// - `.speechStart` at the first sample of speech; `.speechEnd` at the first sample after it, and also
///   when listening stops during speech, at the end of the last decision taken in.
/// - `.endpoint(reason)`, then `.outcome(...)`, once, stamped with the time the end was decided: a
///   silence endpoint at the `decidedAt` of the decision that showed it (smoothing delay included), a
///   time limit at its exact deadline, a manual stop or end of input at the time given. A cancel posts
///   only `.outcome(.canceled)`.
///
/// Rules of precedence where the SDK is silent:
/// - `maxRecordingTime` ends the interaction as soon as now reaches it, so a decision made after it is
///   not taken in; a decision made exactly at it is, but the cap beats a silence endpoint at the same
///   instant.
/// - The initial-silence timeout is about when the user began to talk (the SDK: "the maximum number of
///   seconds that a user can remain silent before beginning to talk"), so it is judged on the audio, not
///   on when the smoother decided: a decision that starts before the deadline is taken in whenever it is
///   made, and its speech lifts the timeout — speech begun at 1.24 s and confirmed at 1.53 s beats a
///   1.5 s deadline. The timeout fires once the decisions reach the deadline in silence (stamped at the
///   deadline), or when a stop, cancel, end of input or extension is made after it.
/// - Silence endpoints (``rules``) wait for `minRecordingTime` and for any ``extendTimeout(by:at:into:)``,
///   and go to ``shouldEndRecording`` first; time limits, manual stop and end of input do not.
/// - The outcome: `audioTooShort` for a manual stop before `minRecordingTime`; otherwise `noAudio` when
///   no speech was heard and `cancelWhenSilent` is on; otherwise `audioCaptured`. End of input before
///   `minRecordingTime` is not "too short": the SDK reserves that error for `stopListening`.
///
/// Once the interaction has ended, every further call is ignored.
public struct Endpointer: Sendable {
    public let configuration: EndpointerConfiguration
    /// The media time listening began; recording time is measured from here.
    public let start: MediaTime
    /// The silence-endpoint rules in force, starting as the configuration's ``EndpointerConfiguration/endpointRules``.
    /// May be changed at any time and applies from the next decision; empty disables silence endpoints.
    public var rules: [EndpointRule]
    /// Asked before each silence endpoint, with the time it would be stamped; return false to keep
    /// listening (the SDK's `speechServiceShouldEndRecording:`). After a veto, trailing silence is
    /// measured afresh from the end of the decision that was vetoed, so the hook is asked again only
    /// after another full silence interval of a rule, or after new speech and silence following it.
    /// Time limits, manual stop and end of input are not asked about.
    public var shouldEndRecording: (@Sendable (MediaTime) -> Bool)?

    /// Whether any speech has been taken in.
    public private(set) var speechSeen = false
    /// Whether the last decision taken in was speech.
    public private(set) var isInSpeech = false
    /// Why listening stopped; nil while listening and after a cancel.
    public private(set) var endpointReason: EndpointReason?
    /// How the interaction ended; nil while listening.
    public private(set) var outcome: InteractionOutcome?
    /// When it ended (the time of its outcome event); nil while listening.
    public private(set) var endedAt: MediaTime?

    private var now: MediaTime
    private var initialSilenceDeadline: MediaTime?
    private let maxRecordingDeadline: MediaTime?
    private let minRecordingEnd: MediaTime
    /// No silence endpoint before this; nil for never (an infinite extension).
    private var silenceEndpointsFrom: MediaTime?
    private var firstSpeechStart: MediaTime?
    /// Where trailing silence is measured from: the end of the last speech (at or above
    /// `endingSilenceThreshold`), the start, or a veto.
    private var silenceStart: MediaTime
    /// The end of the last decision taken in.
    private var processedEnd: MediaTime

    /// An endpointer listening from `start`. The configuration was validated when it was made.
    public init(configuration: EndpointerConfiguration, start: MediaTime) {
        self.configuration = configuration
        self.start = start
        rules = configuration.endpointRules
        now = start
        initialSilenceDeadline = Self.time(start, plus: configuration.maxInitialSilence)
        maxRecordingDeadline = Self.time(start, plus: configuration.maxRecordingTime)
        minRecordingEnd = Self.time(start, plus: configuration.minRecordingTime) ?? start
        silenceEndpointsFrom = start
        silenceStart = start
        processedEnd = start
    }

    /// Whether the interaction is still going on.
    public var isListening: Bool { outcome == nil }

    /// Takes in one decision. Returns whether it was taken in: false once the interaction has ended,
    /// for a decision made after a deadline that ended it, and for one that ends before ``start``.
    @discardableResult
    public mutating func process(_ decision: VADDecision, into events: inout [StageEvent]) -> Bool {
        guard isListening else { return false }
        let decidedAt = Swift.max(decision.decidedAt, now)
        endAtDeadline(before: decidedAt, orAt: false, heard: decision.start, into: &events)
        guard isListening, decision.end > start else { return false }
        now = decidedAt
        takeIn(decision, into: &events)
        endAtDeadline(before: now, orAt: true, heard: decision.end, into: &events)
        let heardUntil = silenceHeard(until: decision)
        if isListening, silenceEndpointHolds(at: heardUntil) {
            if shouldEndRecording?(now) ?? true {
                end(.endingSilence, at: now, into: &events)
            } else {
                silenceStart = heardUntil
            }
        }
        return true
    }

    /// The application stopped listening at `time` (the SDK's `stopListening`): `.endpoint(.manualStop)`,
    /// with `audioTooShort` before `minRecordingTime`.
    public mutating func stop(at time: MediaTime, into events: inout [StageEvent]) {
        guard advance(to: time, into: &events) else { return }
        end(.manualStop, at: now, into: &events)
    }

    /// The application cancelled at `time`: `.outcome(.canceled)`, with no endpoint.
    public mutating func cancel(at time: MediaTime, into events: inout [StageEvent]) {
        guard advance(to: time, into: &events) else { return }
        end(nil, at: now, into: &events)
    }

    /// The input ended at `time` (a file ran out): `.endpoint(.endOfInput)` and its outcome, unless the
    /// interaction ended before.
    public mutating func finish(at time: MediaTime, into events: inout [StageEvent]) {
        guard advance(to: time, into: &events) else { return }
        end(.endOfInput, at: now, into: &events)
    }

    /// Keeps listening until at least `time + seconds` (the SDK's `extendTimeout:`): the initial-silence
    /// deadline moves there if it was earlier, and no silence endpoint fires before it. Infinity holds
    /// off both until a manual stop or the end of input.
    ///
    /// It does not extend `maxRecordingTime`: that is the cap on what is captured and sent (the
    /// service limits request size), which an application raises by configuring it, not by a call
    /// that may come from a timer. Throws ``EarshotError/Code/invalidParameter`` for a negative or NaN
    /// `seconds`.
    public mutating func extendTimeout(by seconds: Double, at time: MediaTime, into events: inout [StageEvent]) throws {
        try ParameterCheck.duration(seconds, "extendTimeout", allowsInfinity: true)
        guard advance(to: time, into: &events) else { return }
        let until = Self.time(now, plus: seconds)
        if let from = silenceEndpointsFrom {
            silenceEndpointsFrom = until.map { Swift.max(from, $0) }
        }
        if let deadline = initialSilenceDeadline {
            initialSilenceDeadline = until.map { Swift.max(deadline, $0) }
        }
    }

    // MARK: - Transitions

    /// Moves now to `time`, ending at any deadline reached on the way; returns whether still listening.
    private mutating func advance(to time: MediaTime, into events: inout [StageEvent]) -> Bool {
        guard isListening else { return false }
        let time = Swift.max(time, now)
        endAtDeadline(before: time, orAt: true, into: &events)
        now = time
        return isListening
    }

    private mutating func takeIn(_ decision: VADDecision, into events: inout [StageEvent]) {
        if decision.isSpeech {
            if !isInSpeech {
                isInSpeech = true
                speechSeen = true
                events.append(StageEvent(time: decision.start, kind: .speechStart))
                if firstSpeechStart == nil { firstSpeechStart = decision.start }
                // What came before a run is not its trailing silence, even before a confident frame.
                silenceStart = Swift.max(silenceStart, decision.start)
            }
            if decision.probability >= configuration.endingSilenceThreshold { silenceStart = decision.end }
        } else if isInSpeech {
            isInSpeech = false
            events.append(StageEvent(time: decision.start, kind: .speechEnd))
        }
        processedEnd = decision.end
    }

    /// Ends at the earliest time limit that is due: `maxRecordingTime` when it falls before `time` (or at
    /// it, when `orAt`); the initial-silence timeout the same way, except that on a decision (`heard`
    /// given: the audio decided so far) it is due only once that audio reaches the deadline. At a tie the
    /// initial-silence timeout wins, as the more specific reason.
    private mutating func endAtDeadline(
        before time: MediaTime, orAt: Bool, heard: MediaTime? = nil, into events: inout [StageEvent]
    ) {
        func due(_ deadline: MediaTime, by time: MediaTime) -> Bool { deadline < time || (orAt && deadline == time) }
        var earliest: (time: MediaTime, reason: EndpointReason)?
        if !speechSeen, let deadline = initialSilenceDeadline {
            if let heard {
                if deadline <= heard { earliest = (deadline, .initialSilenceTimeout) }
            } else if due(deadline, by: time) {
                earliest = (deadline, .initialSilenceTimeout)
            }
        }
        if let deadline = maxRecordingDeadline, due(deadline, by: time), earliest.map({ deadline < $0.time }) ?? true {
            earliest = (deadline, .maxRecordingTime)
        }
        guard let (deadline, reason) = earliest else { return }
        end(reason, at: deadline, into: &events)
    }

    /// How far the silence is known to reach at `decision`: to its end; or, measuring on the detector's
    /// evidence (`endingSilenceThreshold` > 0) at a silence decision, to now, the newest audio the
    /// smoother had seen — what it still held then is silence held back only as possible padding
    /// before speech (``VADDecision/decidedAt``).
    private func silenceHeard(until decision: VADDecision) -> MediaTime {
        guard configuration.endingSilenceThreshold > 0, !decision.isSpeech else { return decision.end }
        return Swift.max(decision.end, now)
    }

    private func silenceEndpointHolds(at end: MediaTime) -> Bool {
        guard now >= minRecordingEnd, let from = silenceEndpointsFrom, now >= from else { return false }
        return rules.contains { rule in
            guard speechSeen || !rule.requiresSpeech,
                let silenceNeeded = Self.time(silenceStart, plus: rule.minTrailingSilence), end >= silenceNeeded
            else { return false }
            guard let first = firstSpeechStart else { return rule.minUtteranceLength == 0 }
            guard let lengthNeeded = Self.time(first, plus: rule.minUtteranceLength) else { return false }
            return end >= lengthNeeded
        }
    }

    /// Ends the interaction: `reason` nil is a cancel.
    private mutating func end(_ reason: EndpointReason?, at time: MediaTime, into events: inout [StageEvent]) {
        if isInSpeech {
            isInSpeech = false
            events.append(StageEvent(time: processedEnd, kind: .speechEnd))
        }
        let outcome: InteractionOutcome
        if reason == nil {
            outcome = .canceled
        } else if reason == .manualStop, time < minRecordingEnd {
            outcome = .audioTooShort
        } else if !speechSeen, configuration.cancelWhenSilent {
            outcome = .noAudio
        } else {
            outcome = .audioCaptured
        }
        if let reason { events.append(StageEvent(time: time, kind: .endpoint(reason))) }
        events.append(StageEvent(time: time, kind: .outcome(outcome)))
        endpointReason = reason
        self.outcome = outcome
        endedAt = time
    }

    /// `time` moved by `seconds` on its own clock, rounded to the nearest sample; nil when infinite
    /// (or beyond any stream), which disables whatever it is a limit for.
    private static func time(_ time: MediaTime, plus seconds: Double) -> MediaTime? {
        let frames = (seconds * Double(time.sampleRate)).rounded()
        guard frames < 1e18 else { return nil }
        return time.advanced(by: Int64(frames))
    }
}
