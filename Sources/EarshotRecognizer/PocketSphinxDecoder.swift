import CPocketSphinx
import EarshotCore

/// The one place a PocketSphinx decoder is made: arguments parsed, model loaded, and the rates the
/// model settled on read back. Shared by the recognizer and the forced aligner.
enum PocketSphinxDecoder {
    struct Loaded {
        /// The decoder; the caller owns it and frees it with `ps_free`.
        var decoder: OpaquePointer
        /// Mono at the model's sample rate.
        var format: AudioFormat
        /// Samples per decoder frame (160 at 16 kHz and 100 frames per second).
        var samplesPerFrame: Int
    }

    /// Loads a decoder from command-line style `arguments`; `model` names the files in errors.
    ///
    /// Throws `.modelUnavailable` when PocketSphinx rejects the arguments or the model, or when the
    /// model's rates do not give a whole number of samples per frame.
    static func load(arguments: [String], model: String) throws -> Loaded {
        _ = pocketSphinxLogSilenced
        let parsed = withArgumentVector(arguments) { argc, argv in cmd_ln_parse_r(nil, ps_args(), argc, argv, 1) }
        guard let commandLine = parsed else {
            throw EarshotError(
                .modelUnavailable, "PocketSphinx rejected its arguments: \(arguments.joined(separator: " "))")
        }
        // The decoder retains the command line it is given, so ours can go whether or not it loaded.
        defer { cmd_ln_free_r(commandLine) }
        guard let decoder = ps_init(commandLine) else {
            throw EarshotError(
                .modelUnavailable,
                "PocketSphinx could not load the model (\(model)); the files exist but one is damaged or not a "
                    + "PocketSphinx model")
        }
        // The acoustic model's feat.params may set the rates; read what the decoder settled on.
        let loaded = ps_get_config(decoder)
        let sampleRate = Int(cmd_ln_float_r(loaded, "-samprate"))
        let frameRate = Int(cmd_ln_int_r(loaded, "-frate"))
        guard frameRate > 0, sampleRate % frameRate == 0,
            let format = try? AudioFormat(sampleRate: sampleRate, channelCount: 1)
        else {
            ps_free(decoder)
            throw EarshotError(
                .modelUnavailable,
                "PocketSphinx model (\(model)) runs at \(sampleRate) Hz and \(frameRate) frames/s; expected a whole "
                    + "number of samples per frame")
        }
        return Loaded(decoder: decoder, format: format, samplesPerFrame: sampleRate / frameRate)
    }

    /// Calls `body` with a C argument vector for `arguments`, valid only during the call.
    ///
    /// All strings share one NUL-separated allocation freed on return; `cmd_ln_parse_r` copies every
    /// name and value it keeps (checked under valgrind with sphinxbase 5prealpha), so nothing dangles.
    static func withArgumentVector<Result>(
        _ arguments: [String], _ body: (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        var storage: [CChar] = []
        var offsets: [Int] = []
        for argument in arguments {
            offsets.append(storage.count)
            storage.append(contentsOf: argument.utf8CString)
        }
        return storage.withUnsafeMutableBufferPointer { characters in
            var vector: [UnsafeMutablePointer<CChar>?] = offsets.map { characters.baseAddress! + $0 }
            return vector.withUnsafeMutableBufferPointer { body(Int32(arguments.count), $0.baseAddress!) }
        }
    }
}

/// PocketSphinx logs configuration and progress to stderr unless told otherwise. Its log target is
/// process-wide, so it is switched off once, under Swift's thread-safe global initialisation.
let pocketSphinxLogSilenced: Void = err_set_logfp(nil)
