import EarshotCore
public import EarshotRecognizer
public import EarshotWire

extension RecognitionDocument {
    /// The document for `result`, the final result of a request that carried `audioBytes` bytes
    /// holding `audioTime` seconds of audio; with `wordTimes`, the Earshot extension `WordTimes`.
    public init(
        result: RecognitionResult, responseID: String, audioTime: Double, audioBytes: Int, wordTimes: Bool = false
    ) {
        let nBest = result.hypotheses.filter { !$0.text.isEmpty }.map { hypothesis in
            let confidence = Self.rounded(hypothesis.confidence ?? 0)
            return NBest(
                hypothesis: hypothesis.text, languageID: "en-us", confidence: confidence,
                grade: Self.grade(confidence: confidence), resultText: hypothesis.text,
                words: hypothesis.words.map(\.word),
                wordScores: hypothesis.words.map { Self.rounded($0.confidence ?? 0) },
                wordTimes: wordTimes
                    ? hypothesis.words.map { [Self.rounded($0.start), Self.rounded($0.end)] } : nil)
        }
        self.init(
            recognition: Recognition(
                status: nBest.isEmpty ? "No Speech" : "OK", responseID: responseID,
                info: Info(metrics: Metrics(audioTime: Self.rounded(audioTime), audioBytes: audioBytes)),
                nBest: nBest.isEmpty ? nil : nBest))
    }

    /// The "No Speech" document for a request ended before its audio did (``InitialSilenceLimit``).
    public init(noSpeechIn audioTime: Double, audioBytes: Int, responseID: String) {
        self.init(
            recognition: Recognition(
                status: "No Speech", responseID: responseID,
                info: Info(metrics: Metrics(audioTime: Self.rounded(audioTime), audioBytes: audioBytes)), nBest: nil))
    }
}
