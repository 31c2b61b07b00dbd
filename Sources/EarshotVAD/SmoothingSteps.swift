/// The four steps of ``DecisionSmoother``, each a small state machine over frame labels.
///
/// Each step takes its input as runs (a label and a count of frames, in stream order) and releases
/// its output as runs, holding back only frames whose label it cannot know yet. Everything a step
/// holds back has the same label, so a count is all it stores: the smoother keeps the frames
/// themselves in one ring buffer, and the steps allocate nothing.

/// Some consecutive frames that share one label.
struct LabelRun: Equatable {
    var isSpeech: Bool
    var count: Int

    static let none = LabelRun(isSpeech: false, count: 0)
}

/// Hysteresis between the onset and offset thresholds, with a causal hangover. Holds nothing back.
struct Hysteresis {
    let onset: Float
    let offset: Float
    /// Frames that stay speech after the probability falls below `offset`.
    let hangoverFrames: Int
    private(set) var inSpeech = false
    private var framesBelowOffset = 0

    init(onset: Float, offset: Float, hangoverFrames: Int) {
        self.onset = onset
        self.offset = offset
        self.hangoverFrames = hangoverFrames
    }

    mutating func label(_ probability: Float) -> Bool {
        if !inSpeech {
            inSpeech = probability >= onset
            framesBelowOffset = 0
        } else if probability >= offset {
            framesBelowOffset = 0
        } else {
            framesBelowOffset += 1
            inSpeech = framesBelowOffset <= hangoverFrames
        }
        return inSpeech
    }
}

/// Fills silences shorter than `minFrames` that lie between two speech runs. Holds back the silence
/// after speech until it is either filled (speech resumes) or `minFrames` long.
struct GapFiller {
    let minFrames: Int
    private var afterSpeech = false
    private(set) var held = 0

    init(minFrames: Int) { self.minFrames = Swift.max(minFrames, 1) }

    mutating func push(_ run: LabelRun) -> LabelRun {
        if run.isSpeech {
            afterSpeech = true
            defer { held = 0 }
            return LabelRun(isSpeech: true, count: held + run.count)
        }
        guard afterSpeech else { return run }
        held += run.count
        guard held >= minFrames else { return .none }
        afterSpeech = false
        defer { held = 0 }
        return LabelRun(isSpeech: false, count: held)
    }

    /// The stream ended: a trailing silence is not between two runs, so it stays silence.
    mutating func finish() -> LabelRun {
        defer { held = 0 }
        return LabelRun(isSpeech: false, count: held)
    }
}

/// Drops speech runs shorter than `minFrames`. Holds back the start of each run until it is
/// `minFrames` long (then it is kept) or ends (then it is silence).
struct ShortRunFilter {
    let minFrames: Int
    private var confirmed = false
    private(set) var held = 0

    init(minFrames: Int) { self.minFrames = Swift.max(minFrames, 1) }

    mutating func push(_ run: LabelRun) -> LabelRun {
        if !run.isSpeech {
            confirmed = false
            defer { held = 0 }
            return LabelRun(isSpeech: false, count: held + run.count)
        }
        if confirmed { return run }
        held += run.count
        guard held >= minFrames else { return .none }
        confirmed = true
        defer { held = 0 }
        return LabelRun(isSpeech: true, count: held)
    }

    /// The stream ended inside a run that never reached `minFrames`: it is dropped.
    mutating func finish() -> LabelRun {
        defer { held = 0 }
        return LabelRun(isSpeech: false, count: held)
    }
}

/// Marks `beforeFrames` of silence before each speech run and `afterFrames` after it as speech.
/// Holds back up to `beforeFrames` of silence, in case speech follows.
struct Padder {
    let beforeFrames: Int
    let afterFrames: Int
    private var afterLeft = 0
    private(set) var held = 0

    init(beforeFrames: Int, afterFrames: Int) {
        self.beforeFrames = beforeFrames
        self.afterFrames = afterFrames
    }

    /// Up to two runs, in order: speech padding after the last run, then silence that is released.
    mutating func push(_ run: LabelRun) -> (LabelRun, LabelRun) {
        if run.isSpeech {
            afterLeft = afterFrames
            defer { held = 0 }
            return (LabelRun(isSpeech: true, count: held + run.count), .none)
        }
        // Silence is held only once the padding after the previous run is used up, so `held` is 0 here
        // whenever `afterLeft` is not.
        let padded = Swift.min(run.count, afterLeft)
        afterLeft -= padded
        held += run.count - padded
        let released = Swift.max(held - beforeFrames, 0)
        held -= released
        return (LabelRun(isSpeech: true, count: padded), LabelRun(isSpeech: false, count: released))
    }

    /// The stream ended: no speech follows what is held.
    mutating func finish() -> LabelRun {
        defer { held = 0 }
        return LabelRun(isSpeech: false, count: held)
    }
}
