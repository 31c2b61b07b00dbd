import CALSA
public import EarshotCore

/// Live capture from an ALSA PCM device: the microphone on Linux.
///
/// Opens `device` (an ALSA PCM name: `default`, `hw:1,0`, or one an `asoundrc` defines — such as a
/// `file` plugin whose `infile` replays a recording, which is how tests run without a sound card)
/// for interleaved 16-bit capture at the rate and channel count asked, or the nearest the device
/// offers (``format`` says which). Each `read()` blocks until `blockFrames` frames (20 ms by
/// default) have been captured, and stamps them with media time counted from the first frame.
/// An overrun (the reader fell behind and ALSA dropped audio) is recovered and the media clock
/// advanced by nothing: the lost audio is simply missing, which a live source cannot avoid.
///
/// `read()` returns nil only after ``stop()`` or when the device reports the end of its stream (a
/// file-backed PCM at the end of its file).
public final class ALSACaptureSource: AudioSource {
    public let format: AudioFormat
    public let device: String
    private var pcm: OpaquePointer?
    private let blockFrames: Int
    private var scratch: [Int16]
    private var nextFrame: Int64 = 0

    /// Opens `device` for capture. Throws `.noMicrophone` naming the device and ALSA's reason when
    /// it cannot be opened or configured.
    public init(
        device: String = "default", sampleRate: Int = 16_000, channelCount: Int = 1, blockDuration: Double = 0.02
    )
        throws
    {
        self.device = device
        _ = alsaErrorsSilenced
        var handle: OpaquePointer?
        var status = snd_pcm_open(&handle, device, SND_PCM_STREAM_CAPTURE, 0)
        guard status >= 0, let pcm = handle else {
            throw EarshotError(
                .noMicrophone,
                "no microphone: ALSA capture device \"\(device)\" could not be opened (\(Self.reason(status)))")
        }
        var rate = UInt32(sampleRate)
        var channels = UInt32(channelCount)
        var params: OpaquePointer?
        snd_pcm_hw_params_malloc(&params)
        defer { snd_pcm_hw_params_free(params) }
        status = snd_pcm_hw_params_any(pcm, params)
        if status >= 0 { status = snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED) }
        if status >= 0 { status = snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE) }
        if status >= 0 { status = snd_pcm_hw_params_set_channels_near(pcm, params, &channels) }
        if status >= 0 { status = snd_pcm_hw_params_set_rate_near(pcm, params, &rate, nil) }
        if status >= 0 { status = snd_pcm_hw_params(pcm, params) }
        if status >= 0 { status = snd_pcm_prepare(pcm) }
        guard status >= 0 else {
            snd_pcm_close(pcm)
            throw EarshotError(
                .noMicrophone,
                "no microphone: ALSA capture device \"\(device)\" refused 16-bit capture at \(sampleRate) Hz, "
                    + "\(channelCount) channel(s) (\(Self.reason(status)))")
        }
        self.pcm = pcm
        format = try AudioFormat(sampleRate: Int(rate), channelCount: Int(channels), origin: "ALSA device \(device)")
        blockFrames = max(1, Int(Double(rate) * blockDuration))
        scratch = [Int16](repeating: 0, count: blockFrames * Int(channels))
    }

    deinit { stop() }

    /// Closes the device; later reads return nil.
    public func stop() {
        if let pcm {
            snd_pcm_close(pcm)
            self.pcm = nil
        }
    }

    public func read() throws -> AudioBuffer? {
        guard let pcm else { return nil }
        let channels = format.channelCount
        var filled = 0
        while filled < blockFrames {
            let got = scratch.withUnsafeMutableBufferPointer { samples in
                snd_pcm_readi(pcm, samples.baseAddress! + filled * channels, snd_pcm_uframes_t(blockFrames - filled))
            }
            if got > 0 {
                filled += Int(got)
            } else if got == 0 || got == -Int(EAGAIN) {
                break
            } else if got == -Int(EPIPE) || got == -Int(ESTRPIPE) {
                // Overrun or suspend: recover and go on capturing.
                guard snd_pcm_recover(pcm, Int32(got), 1) >= 0 else {
                    throw EarshotError(
                        .invalidInput, "ALSA device \(device): capture failed (\(Self.reason(Int32(got))))")
                }
            } else {
                throw EarshotError(.invalidInput, "ALSA device \(device): capture failed (\(Self.reason(Int32(got))))")
            }
        }
        if filled == 0 {
            stop()
            return nil
        }
        var samples = [Float](repeating: 0, count: filled * channels)
        scratch.withUnsafeBufferPointer { source in
            samples.withUnsafeMutableBufferPointer { target in
                PCM.convert(UnsafeBufferPointer(rebasing: source[0..<filled * channels]), to: target)
            }
        }
        let buffer = AudioBuffer(format: format, samples: samples, startFrame: nextFrame)
        nextFrame += Int64(filled)
        return buffer
    }

    private static func reason(_ status: Int32) -> String {
        snd_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    }
}

/// alsa-lib's error printer is process-wide: replaced once, under Swift's thread-safe global initialisation.
private let alsaErrorsSilenced: Void = earshot_alsa_silence_errors()
