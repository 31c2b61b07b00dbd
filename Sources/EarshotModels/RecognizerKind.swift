/// The engines Earshot recognizes speech with in-process.
public enum RecognizerKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Whisper (our inference of a CTranslate2 model folder: tiny.en by default): the default whenever
    /// its model is installed.
    case whisper
    /// PocketSphinx (Debian's `pocketsphinx-en-us`): grammars (Speech to Text Custom), and the fallback
    /// when no Whisper model is installed.
    case pocketsphinx
}
