// swift-tools-version: 6.1
// Earshot: the audio front end of speech recognition on Linux.
// Targets read as the pipeline: C shims, then one Swift module per stage family, then the thin CLI.
import PackageDescription

// Imports are internal unless marked `public import`, so no dependency reaches the public API by accident;
// existentials are spelled `any P`; a member is used only from a module the file imports (as Hummingbird
// builds).
let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6), .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "earshot", targets: ["earshot"]),
        .library(name: "EarshotCore", targets: ["EarshotCore"]),
        .library(name: "EarshotIO", targets: ["EarshotIO"]),
        .library(name: "EarshotDSP", targets: ["EarshotDSP"]),
        .library(name: "EarshotRecognizer", targets: ["EarshotRecognizer"]),
        .library(name: "EarshotWhisper", targets: ["EarshotWhisper"]),
        .library(name: "EarshotModels", targets: ["EarshotModels"]),
        .library(name: "EarshotCodecs", targets: ["EarshotCodecs"]),
        .library(name: "EarshotVAD", targets: ["EarshotVAD"]),
        .library(name: "EarshotTranscription", targets: ["EarshotTranscription"]),
        .library(name: "EarshotServiceTranscription", targets: ["EarshotServiceTranscription"]),
        .library(name: "EarshotLab", targets: ["EarshotLab"]),
        .library(name: "EarshotLoad", targets: ["EarshotLoad"]),
        .library(name: "EarshotTesting", targets: ["EarshotTesting"]),
        .library(name: "EarshotServerTesting", targets: ["EarshotServerTesting"]),
        .library(name: "EarshotServer", targets: ["EarshotServer"]),
        .library(name: "EarshotCapture", targets: ["EarshotCapture"]),
        .library(name: "EarshotSynthesis", targets: ["EarshotSynthesis"]),
        .library(name: "EarshotClient", targets: ["EarshotClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // OpenAI's Realtime transcription sessions (/v1/realtime) over WebSocket, and their tests' client.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Its core types (close frames), which the tests' WebSocket client reads.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The CLI's config file (YAML or JSON) and EARSHOT_… variables; Yams lists a file's keys so unknown
        // ones are refused by name.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // System-library shims: a module map and pkg-config name each, no Swift.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(
            name: "CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),
        .systemLibrary(name: "CSpeex", pkgConfig: "speex", providers: [.apt(["libspeex-dev"])]),
        .systemLibrary(name: "COgg", pkgConfig: "ogg", providers: [.apt(["libogg-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "COpenCoreAMR", pkgConfig: "opencore-amrnb", providers: [.apt(["libopencore-amrnb-dev"])]),
        .systemLibrary(name: "CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "COpenBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // OpenSSL's libcrypto, for SHA-256 and HMAC-SHA256 (EarshotCrypto): the system's, where swift-crypto
        // would compile a BoringSSL of its own (366 C files, about a sixth of a cold build on two cores).
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        // Flite ships no pkg-config file; the module map links its voices and lexicon.
        .systemLibrary(name: "CFlite", providers: [.apt(["flite1-dev"])]),
        // FFmpeg's demuxers and decoders, for the containers libsndfile does not read (MP4/M4A, WebM, ADTS AAC),
        // loaded with dlopen when a file first needs them (not linked: they cost every command's start-up
        // ~55 ms). Its headers (libavformat-dev, libavcodec-dev, libavutil-dev) are in the default include path.
        .target(name: "CFFmpeg"),
        // Kernel headers only (linux-libc-dev): socket filters and TCP_INFO for the service's listener.
        .systemLibrary(name: "CLinuxSocket"),

        .target(name: "EarshotCore", swiftSettings: strictSwift6),
        // SHA-256 and HMAC-SHA256, over the system's libcrypto.
        .target(name: "EarshotCrypto", dependencies: ["CLibCrypto"], swiftSettings: strictSwift6),
        // AVX-512 twins of two of Whisper's products, in C for its per-function target attribute: the
        // rest of the package stays baseline x86-64, and the twins run only where the CPU has AVX-512.
        .target(name: "CWhisperKernels"),
        // Which OpenBLAS kernels the process runs: a CPU newer than Debian's OpenBLAS gets its SSE3 ones.
        .target(name: "EarshotBLAS", dependencies: ["COpenBLAS"], swiftSettings: strictSwift6),
        // The JSON both sides of a recognition API read and write (OpenAI's transcription API), as Codable types.
        .target(name: "EarshotWire", dependencies: ["EarshotCore"], swiftSettings: strictSwift6),
        .target(
            name: "EarshotIO",
            dependencies: [
                "EarshotCore", "EarshotCodecs", "CSndFile", "CALSA", "CFFmpeg",
                // SIGINT and SIGTERM for commands (Interrupts), as the service's graceful shutdown gets them.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift6),
        .target(name: "EarshotDSP", dependencies: ["EarshotCore", "CSpeexDSP", "CSoxr"], swiftSettings: strictSwift6),
        .target(
            name: "EarshotRecognizer",
            dependencies: [
                "EarshotCore", "CPocketSphinx",
                // SHA-256 of a custom language model's source, in its manifest.
                "EarshotCrypto",
            ], swiftSettings: strictSwift6),
        // Whisper: our reader of CTranslate2's model files and our inference, a Recognizer.
        .target(
            name: "EarshotWhisper",
            dependencies: ["EarshotCore", "EarshotRecognizer", "COpenBLAS", "CZlib", "CWhisperKernels"],
            swiftSettings: strictSwift6),
        // The embedded recognizers a process can load (Whisper, PocketSphinx): where their models are
        // found, which one is chosen, and the factory every command and the service make them with.
        .target(
            name: "EarshotModels",
            dependencies: [
                "EarshotCore", "EarshotRecognizer", "EarshotWhisper", "EarshotVAD",
                // SHA-256 of the models' files, checked against their pins when installed and listed.
                "EarshotCrypto",
            ], swiftSettings: strictSwift6),
        .target(
            name: "EarshotCodecs",
            dependencies: ["EarshotCore", "CSpeex", "COgg", "COpus", "COpenCoreAMR", "CFLAC"],
            swiftSettings: strictSwift6),
        .target(
            name: "EarshotVAD", dependencies: ["EarshotCore", "EarshotDSP", "CFFTW", "CSpeexDSP", "COpenBLAS"],
            swiftSettings: strictSwift6),
        .target(
            name: "EarshotTranscription",
            dependencies: [
                "EarshotCore", "EarshotDSP", "EarshotVAD", "EarshotRecognizer",
            ],
            swiftSettings: strictSwift6),
        // Transcription through a recognition service: the one piece of transcription that needs the
        // HTTP client, so offline transcription does not.
        .target(
            name: "EarshotServiceTranscription",
            dependencies: [
                "EarshotCore", "EarshotDSP", "EarshotVAD", "EarshotRecognizer", "EarshotCodecs", "EarshotTranscription",
                "EarshotClient",
            ],
            swiftSettings: strictSwift6),
        .target(
            name: "EarshotLab",
            dependencies: [
                "EarshotCore", "EarshotIO", "EarshotDSP", "EarshotVAD", "EarshotRecognizer",
                // The synthetic corpus is spoken in-process by the synthesis stage.
                "EarshotSynthesis",
                // SHA-256 of a corpus's manifest, which tells the partial results of shards of one corpus apart.
                "EarshotCrypto",
            ],
            swiftSettings: strictSwift6),
        // The service load test (`earshot bench`): live clients against a service, or the embedded
        // recognizer paced alike, over a labelled corpus.
        .target(
            name: "EarshotLoad",
            dependencies: [
                "EarshotCore", "EarshotIO", "EarshotDSP", "EarshotRecognizer", "EarshotLab", "EarshotClient",
                // The embedded load test runs the client's own detector and endpointer.
                "EarshotCapture",
            ],
            swiftSettings: strictSwift6),
        .target(
            name: "EarshotServer",
            dependencies: [
                "EarshotCore", "EarshotCodecs", "EarshotDSP", "EarshotRecognizer", "EarshotModels", "EarshotWire",
                // A voice activity detector ends uploads with no speech early (InitialSilenceLimit).
                "EarshotVAD",
                // Text to Speech: /speech/v3/textToSpeech and /v1/audio/speech.
                "EarshotSynthesis",
                // MP3, MP4/M4A, WebM and Ogg Vorbis uploads are decoded through FFmpeg (MediaSpoolDecoder).
                "EarshotIO", "CLinuxSocket",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                "EarshotCrypto",
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSwift6),
        // Live capture for one interaction (resampler → level → encoder and chunker beside VAD →
        // smoother → endpointer), below and without the HTTP client.
        // Speech synthesis, a source of the pipeline: text or SSML into audio through Flite and eSpeak NG.
        .target(
            name: "EarshotSynthesis", dependencies: ["EarshotCore", "CEspeakNG", "CFlite"], swiftSettings: strictSwift6),
        .target(
            name: "EarshotCapture", dependencies: ["EarshotCore", "EarshotDSP", "EarshotVAD", "EarshotCodecs"],
            swiftSettings: strictSwift6),
        .target(
            name: "EarshotClient",
            dependencies: [
                "EarshotCore", "EarshotCapture", "EarshotCodecs", "EarshotDSP", "EarshotVAD", "EarshotWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                // OpenAI's Realtime transcription sessions (RealtimeListener): the WebSocket client, the
                // header and logger types its API takes, and the close codes a server ends a session with.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6),
        .target(
            name: "EarshotTesting", dependencies: ["EarshotCore"], swiftSettings: strictSwift6),
        // Which threads a suite runs on (swift-testing traits): apart from EarshotTesting, which the
        // fuzz targets link without swift-testing.
        .target(
            name: "EarshotTestTraits", dependencies: ["EarshotCore", "EarshotTesting"], swiftSettings: strictSwift6),
        // The in-process service, a raw loopback HTTP client and reference transcripts, for the server's
        // and the client's tests (as HummingbirdTesting is to Hummingbird): apart from EarshotTesting so
        // the lower stages' tests need not link the server.
        .target(
            name: "EarshotServerTesting",
            dependencies: [
                "EarshotServer", "EarshotTesting", "EarshotCore", "EarshotCodecs", "EarshotDSP", "EarshotIO",
                "EarshotRecognizer",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6),
        .executableTarget(
            name: "earshot",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                "EarshotCore", "EarshotIO", "EarshotDSP", "EarshotRecognizer", "EarshotCodecs", "EarshotVAD",
                "EarshotTranscription", "EarshotServiceTranscription", "EarshotLab", "EarshotLoad", "EarshotServer",
                "EarshotClient", "EarshotWhisper", "EarshotModels", "EarshotBLAS", "EarshotSynthesis", "EarshotCapture",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift6),

        .testTarget(
            name: "EarshotCoreTests", dependencies: ["EarshotCore", "EarshotCrypto", "EarshotTesting", "EarshotTestTraits"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotIOTests",
            dependencies: [
                "EarshotCore", "EarshotIO", "EarshotTesting", "CSndFile", "EarshotTestTraits",
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotDSPTests",
            dependencies: ["EarshotCore", "EarshotDSP", "EarshotIO", "EarshotTesting", "EarshotTestTraits"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotRecognizerTests",
            dependencies: [
                "EarshotCore",
                "EarshotRecognizer", "EarshotDSP", "EarshotIO", "EarshotLab", "EarshotTesting", "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotWhisperTests",
            dependencies: [
                "EarshotCore",
                "EarshotWhisper", "EarshotModels", "EarshotRecognizer", "EarshotIO", "EarshotLab", "EarshotTesting",
                "EarshotTestTraits", "EarshotBLAS", "CWhisperKernels",
                "EarshotCrypto",
            ],
            exclude: ["Fixtures"], swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotCodecsTests",
            dependencies: [
                "EarshotCore",
                "EarshotCodecs", "EarshotDSP", "EarshotIO", "EarshotRecognizer", "EarshotLab", "EarshotTesting",
                "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotVADTests",
            dependencies: [
                "EarshotCore", "EarshotVAD", "EarshotDSP", "EarshotIO", "EarshotTesting", "EarshotTestTraits",
            ],
            exclude: ["Fixtures"], swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotLabTests",
            dependencies: [
                "EarshotCore", "EarshotRecognizer", "EarshotLab", "EarshotVAD", "EarshotIO", "EarshotTesting",
                "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotTranscriptionTests",
            dependencies: [
                "EarshotCore", "EarshotRecognizer",
                "EarshotTranscription", "EarshotLab", "EarshotVAD", "EarshotIO", "EarshotTesting", "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotServiceTranscriptionTests",
            dependencies: [
                "EarshotCore",
                "EarshotServiceTranscription", "EarshotClient", "EarshotWire", "EarshotRecognizer", "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotServerTests",
            dependencies: [
                "EarshotCore", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                "EarshotServer", "EarshotServerTesting", "EarshotWire", "EarshotCodecs", "EarshotDSP", "EarshotIO",
                "EarshotRecognizer", "EarshotTesting",
                "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotClientTests",
            dependencies: [
                "EarshotCore", "EarshotVAD",
                "EarshotClient", "EarshotServer", "EarshotServerTesting", "EarshotWire", "EarshotCodecs", "EarshotIO",
                "EarshotLab", "EarshotTesting", "EarshotCapture",
                "EarshotTestTraits",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotSynthesisTests",
            dependencies: ["EarshotSynthesis", "EarshotCore", "EarshotTestTraits"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EarshotCLITests",
            dependencies: ["earshot", "EarshotCore", "EarshotLab", "EarshotVAD", "EarshotTesting", "EarshotTestTraits"],
            swiftSettings: strictSwift6),
        // The CLI's commands parsed in this process (`@testable import earshot`), no binary started.
        .testTarget(
            name: "EarshotCommandTests",
            dependencies: [
                "earshot", "EarshotCore", "EarshotVAD", "EarshotWhisper", "EarshotTestTraits",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift6),

        .executableTarget(
            name: "EarshotBenchmarks",
            dependencies: [
                "EarshotCore", "EarshotIO", "EarshotDSP", "EarshotCodecs", "EarshotVAD", "EarshotTesting",
                "EarshotCapture", "EarshotRecognizer", "EarshotTranscription", "EarshotWhisper", "CSndFile",
                "CSpeexDSP", "CSoxr", "CSpeex", "COgg", "COpus", "COpenCoreAMR", "CFLAC",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/EarshotBenchmarks",
            swiftSettings: strictSwift6,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
