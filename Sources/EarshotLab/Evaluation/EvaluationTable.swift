import Foundation

/// `earshot eval`'s table for people: frames, endpointing and the label oracle, a row per detector.
public enum EvaluationTable {
    public static func render(_ reports: [DetectorReport], corpus: Corpus) -> String {
        let minutes = corpus.totalDuration / 60
        var text = String(
            format: "%@: %d files, %.1f min, %.0f%% speech\n\n", corpus.directory, corpus.entries.count, minutes,
            corpus.totalDuration > 0 ? corpus.totalSpeech / corpus.totalDuration * 100 : 0)
        text +=
            "frames (10 ms)   precision  recall     F1  false-alarm   AP    start |err| p90  bias    end |err| p90  bias\n"
        for report in reports {
            let start = report.boundaries.start
            let end = report.boundaries.end
            text +=
                pad(report.name, 16)
                + [report.frames.precision, report.frames.recall, report.frames.f1].map { cell($0, 3, 9) }.joined()
                + cell(report.frames.falseAlarmRate, 3, 11) + cell(report.probabilities.averagePrecision(), 3, 7)
                + milliseconds(start.meanAbsolute, 10) + milliseconds(start.p90Absolute, 5)
                + milliseconds(start.bias, 6)
                + milliseconds(end.meanAbsolute, 10) + milliseconds(end.p90Absolute, 5) + milliseconds(end.bias, 6)
                + "\n"
        }
        text += "\nendpointing      latency median   p90   truncated  false-start  wrong-NoAudio  no-endpoint   speed\n"
        for report in reports {
            let metrics = report.endpointing
            text +=
                pad(report.name, 16) + milliseconds(metrics.latency.median, 15) + milliseconds(metrics.latency.p90, 6)
                + percent(metrics.truncationRate, 12) + percent(metrics.falseStartRate, 13)
                + percent(metrics.wrongNoAudioRate, 15) + percent(metrics.missedEndpointRate, 13)
                + (report.realTimeFactor.map { String(format: "%9.0f×", $0) } ?? String(repeating: " ", count: 10))
                + "\n"
        }
        let tolerance = reports.first.map { Int(($0.onTimeTolerance * 1000).rounded()) } ?? 100
        text += "\nvs label oracle  utterances  on time   early    late  missed   delay median   p90   |delay| median\n"
        for report in reports {
            let oracle = report.endpointing.oracle
            text +=
                pad(report.name, 16) + cell(Double(oracle.utterances), 0, 12) + percent(oracle.onTimeRate, 9)
                + percent(oracle.earlyRate, 8) + percent(oracle.lateRate, 8) + percent(oracle.missedRate, 8)
                + milliseconds(oracle.delay.median, 15) + milliseconds(oracle.delay.p90, 6)
                + milliseconds(oracle.absoluteDelay.median, 17) + "\n"
        }
        text += "\nTimes in ms; boundary errors: mean and p90 of |predicted − labelled|, bias = mean signed (+ late).\n"
        text += "Speed: seconds of audio per CPU second, decoding and resampling included.\n"
        text +=
            "Oracle: the same endpointer driven by the labels; delay = endpoint − oracle endpoint (+ late), "
            + "on time within ±\(tolerance) ms, missed = no endpoint where the oracle has one.\n"
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func cell(_ value: Double?, _ digits: Int, _ width: Int) -> String {
        let text = value.map { String(format: "%.\(digits)f", $0) } ?? "–"
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }

    private static func milliseconds(_ seconds: Double?, _ width: Int) -> String {
        let text = seconds.map { String(format: "%.0f", $0 * 1000) } ?? "–"
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }

    private static func percent(_ value: Double?, _ width: Int) -> String {
        let text = value.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }
}
