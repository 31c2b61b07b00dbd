import CFFmpeg
public import EarshotCore
import Foundation

/// Reads the best audio stream of a container libsndfile does not read — MP4/M4A (AAC), WebM and
/// Matroska (Opus, Vorbis), ADTS AAC; MP3 for the service — through FFmpeg's libavformat and
/// libavcodec, in blocks of `blockFrames` frames of interleaved Float32 at the stream's own rate and
/// channel count (as ``AudioFileSource`` delivers).
///
/// The file is read through its open descriptor (``InputFile``: a path is opened once; standard input
/// arrives spooled to a temporary file, so the demuxer may seek), with the demuxer the sniffed
/// ``MediaContainer`` names and no other: FFmpeg is never asked to probe, and may open no other file
/// or URL. Errors name the file: an unreadable container, no audio stream, no decoder, a packet that
/// does not decode, and a file that ends before what its header states (a cut download) — never
/// silently shorter audio. Memory use is one block and one decoded frame, whatever the file's length.
///
/// The length checked is the audio stream's, not the container's: a video whose picture runs on
/// after its sound (a screen capture, `ffmpeg -shortest`) is complete.
public final class MediaFileSource: AudioSource {
    public let format: AudioFormat
    /// The name used in messages (the path, or "stdin").
    public let name: String
    public let container: MediaContainer
    /// The codec as FFmpeg names it, e.g. "aac", "opus".
    public let codecName: String
    /// Frames per buffer returned by `read()`.
    public let blockFrames: Int
    /// Length in seconds of the audio stream as the file states it: the stream's own length (an MP4
    /// track's, an Ogg stream's last granule), else the `DURATION` tag FFmpeg writes on each Matroska
    /// track, else the container's length when the audio is its only stream. Nil when none is stated,
    /// when it is only estimated from the bit rate (ADTS, MP3 without a Xing header), and when the
    /// file holds other streams but states no length for its audio: a video's picture may outlast its
    /// sound, so the container's length is not the audio's.
    public let statedDuration: Double?

    private let ffmpeg: Handles
    /// FFmpeg's functions (``FFmpegLibraries``).
    private var av: earshot_ffmpeg { ffmpeg.av }
    private let streamIndex: Int32
    /// Packets of the audio stream the container states (MP4 counts them exactly), or 0 if unknown.
    private let statedPackets: Int64
    private var packetsRead: Int64 = 0
    /// Decoded interleaved samples not yet returned; `pendingStart` is the first one not yet taken.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var position: Int64 = 0
    private var draining = false
    private var ended = false

    /// Opens `path` (once: see ``InputFile``) as `container`.
    public convenience init(path: String, container: MediaContainer, blockFrames: Int = 4096) throws {
        try self.init(file: InputFile.open(path), container: container, blockFrames: blockFrames)
    }

    /// Reads `file` (a regular file: a path or a spool) from offset 0 as `container`. Takes the
    /// descriptor: closes it when done, or if this throws. Blocks hold `blockFrames` frames, or fewer
    /// when that many would hold more than `maxBlockSamples` samples (all channels counted), so that a
    /// block's size need not grow with the channel count.
    init(file: InputFile, container: MediaContainer, blockFrames: Int, maxBlockSamples: Int = .max) throws {
        precondition(blockFrames > 0 && maxBlockSamples > 0, "blockFrames and maxBlockSamples must be positive")
        let name = file.name
        let av: earshot_ffmpeg
        do {
            av = try FFmpegLibraries.functions(for: name)
        } catch {
            close(file.descriptor)
            throw error
        }
        let ffmpeg = Handles(descriptor: file.descriptor, functions: av)
        earshot_av_clear_log()
        try ffmpeg.openInput(container: container, name: name)
        let context = ffmpeg.formatContext!
        var status = av.avformat_find_stream_info(context, nil)
        guard status >= 0 else {
            throw Self.error(
                name, "not a readable \(container.displayName) file", status: status,
                expected: "a complete \(container.displayName) file", av: av)
        }
        var decoder: UnsafePointer<AVCodec>?
        status = av.av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard status >= 0, let decoder else {
            let streams = context.pointee.nb_streams
            let audio = (0..<Int(streams)).compactMap { context.pointee.streams[$0] }.first {
                $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            }
            if let audio {
                let codec =
                    av.avcodec_get_name(audio.pointee.codecpar.pointee.codec_id).map { String(cString: $0) }
                    ?? "unknown"
                throw EarshotError(
                    .unsupportedFormat,
                    "\(name): its audio is \(codec), which this FFmpeg cannot decode; expected AAC, Opus, Vorbis, "
                        + "MP3, FLAC or PCM (convert it first, e.g. ffmpeg -i IN -ar 16000 -ac 1 OUT.wav)")
            }
            throw EarshotError(
                .invalidInput,
                "\(name): no audio stream (the \(container.displayName) file holds \(streams) other stream"
                    + "\(streams == 1 ? "" : "s")); expected audio")
        }
        streamIndex = status
        let stream = context.pointee.streams[Int(status)]!
        guard let codecContext = av.avcodec_alloc_context3(decoder) else {
            throw EarshotError(.invalidInput, "\(name): cannot allocate a decoder")
        }
        ffmpeg.codecContext = codecContext
        status = av.avcodec_parameters_to_context(codecContext, stream.pointee.codecpar)
        if status >= 0 { status = av.avcodec_open2(codecContext, decoder, nil) }
        codecName = av.avcodec_get_name(codecContext.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
        guard status >= 0 else {
            throw Self.error(name, "cannot open its \(codecName) decoder", status: status, av: av)
        }
        format = try AudioFormat(
            sampleRate: Int(codecContext.pointee.sample_rate),
            channelCount: Int(codecContext.pointee.ch_layout.nb_channels),
            origin: name)
        statedDuration = Self.audioDuration(of: stream, in: context, container: container, av: av)
        statedPackets = container == .mp4 ? max(stream.pointee.nb_frames, 0) : 0
        self.ffmpeg = ffmpeg
        self.name = name
        self.container = container
        self.blockFrames = max(1, min(blockFrames, maxBlockSamples / format.channelCount))
    }

    /// The length `stream` (the audio) states, in seconds: see ``statedDuration``.
    private static func audioDuration(
        of stream: UnsafeMutablePointer<AVStream>, in context: UnsafeMutablePointer<AVFormatContext>,
        container: MediaContainer, av: earshot_ffmpeg
    ) -> Double? {
        // A length worked out from the bit rate is a guess, not a statement.
        guard context.pointee.duration_estimation_method != AVFMT_DURATION_FROM_BITRATE else { return nil }
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration > 0, timeBase.num > 0, timeBase.den > 0 {
            return Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
        }
        if container == .matroska, let tag = av.av_dict_get(stream.pointee.metadata, "DURATION", nil, 0),
            let seconds = clockSeconds(String(cString: tag.pointee.value))
        {
            return seconds
        }
        // The container's length is its longest stream's: the audio's only when there is no other.
        guard context.pointee.nb_streams == 1, context.pointee.duration > 0 else { return nil }
        return Double(context.pointee.duration) / Double(AV_TIME_BASE)
    }

    /// Seconds in a Matroska `DURATION` tag, `HH:MM:SS.nnnnnnnnn`; nil if it is not that.
    static func clockSeconds(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, let hours = Int(fields[0]), let minutes = Int(fields[1]),
            let seconds = Double(fields[2]), hours >= 0, (0..<60).contains(minutes), (0..<60).contains(seconds)
        else { return nil }
        return Double(hours * 3_600 + minutes * 60) + seconds
    }

    public var inputDescription: InputDescription {
        InputDescription(
            name: name, container: container.displayName, encoding: codecName, sampleRate: format.sampleRate,
            channelCount: format.channelCount, duration: statedDuration)
    }

    public func read() throws -> AudioBuffer? {
        let channels = format.channelCount
        while (pending.count - pendingStart) / channels < blockFrames, !ended {
            try decodeMore()
        }
        let frames = min(blockFrames, (pending.count - pendingStart) / channels)
        guard frames > 0 else { return nil }
        let end = pendingStart + frames * channels
        var buffer = AudioBuffer(format: format, samples: Array(pending[pendingStart..<end]))
        buffer.startFrame = position
        position += Int64(frames)
        pendingStart = end
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        } else if pendingStart > 1 << 16 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return buffer
    }

    /// Decodes one frame into `pending`, sending the decoder the next packet when it asks for one; at
    /// the end of the file, flushes the decoder, then checks the file was not cut short.
    private func decodeMore() throws {
        let codecContext = ffmpeg.codecContext!
        let frame = ffmpeg.frame
        earshot_av_clear_log()
        let received = av.avcodec_receive_frame(codecContext, frame)
        if received == 0 {
            defer { av.av_frame_unref(frame) }
            return try append(frame)
        }
        if received == earshot_averror_eof() {
            ended = true
            return try checkComplete()
        }
        guard received == -EAGAIN, !draining else {
            throw damaged("its \(codecName) audio does not decode", status: received)
        }
        let packet = ffmpeg.packet
        while true {
            let status = av.av_read_frame(ffmpeg.formatContext, packet)
            if status == earshot_averror_eof() {
                draining = true
                _ = av.avcodec_send_packet(codecContext, nil)
                return
            }
            guard status >= 0 else { throw damaged("reading failed", status: status) }
            defer { av.av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            // A packet the demuxer had to cut (the file ends inside it) is a truncation, not audio.
            guard packet.pointee.flags & AV_PKT_FLAG_CORRUPT == 0 else {
                throw truncated("its packet \(packetsRead + 1) runs past the end of the file")
            }
            packetsRead += 1
            let sent = av.avcodec_send_packet(codecContext, packet)
            guard sent >= 0 || sent == -EAGAIN else {
                throw damaged("its \(codecName) packet \(packetsRead) does not decode", status: sent)
            }
            return
        }
    }

    /// Converts a decoded frame to interleaved Float32 at the end of `pending`.
    private func append(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        let channels = format.channelCount
        let frames = Int(frame.pointee.nb_samples)
        guard Int(frame.pointee.ch_layout.nb_channels) == channels, Int(frame.pointee.sample_rate) == format.sampleRate
        else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): its audio changes format after \(position) frames (to \(frame.pointee.sample_rate) Hz, "
                    + "\(frame.pointee.ch_layout.nb_channels) channels); expected one rate and channel count throughout"
            )
        }
        guard frames > 0, let planes = frame.pointee.extended_data else { return }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: frames * channels))
        let sampleFormat = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = av.av_sample_fmt_is_planar(sampleFormat) != 0
        // Plane and stride of channel c: planar formats keep one plane per channel, packed ones interleave.
        func convert<Sample>(_: Sample.Type, _ value: (Sample) -> Float) {
            pending.withUnsafeMutableBufferPointer { out in
                for channel in 0..<channels {
                    let plane = UnsafeRawPointer(planes[planar ? channel : 0]!).assumingMemoryBound(to: Sample.self)
                    let (offset, stride) = planar ? (0, 1) : (channel, channels)
                    for index in 0..<frames {
                        out[start + index * channels + channel] = value(plane[offset + index * stride])
                    }
                }
            }
        }
        switch av.av_get_packed_sample_fmt(sampleFormat) {
        case AV_SAMPLE_FMT_FLT: convert(Float.self) { $0 }
        case AV_SAMPLE_FMT_DBL: convert(Double.self) { Float($0) }
        case AV_SAMPLE_FMT_S16: convert(Int16.self) { Float($0) / 32_768 }
        case AV_SAMPLE_FMT_S32: convert(Int32.self) { Float(Double($0) / 2_147_483_648) }
        case AV_SAMPLE_FMT_U8: convert(UInt8.self) { (Float($0) - 128) / 128 }
        default:
            pending.removeLast(frames * channels)
            let sampleName =
                av.av_get_sample_fmt_name(sampleFormat).map { String(cString: $0) } ?? "\(frame.pointee.format)"
            throw EarshotError(
                .unsupportedFormat, "\(name): its decoder gives \(sampleName) samples; expected integer or float PCM")
        }
    }

    /// At the end of the file: refuses fewer packets than an MP4 states, or audio well short of the
    /// length the container states (a WebM cut inside a cluster ends without a damaged packet).
    private func checkComplete() throws {
        if statedPackets > 0, packetsRead < statedPackets {
            throw truncated("its header states \(statedPackets) packets but the file holds \(packetsRead)")
        }
        if let statedDuration {
            let decoded =
                Double(position + Int64((pending.count - pendingStart) / format.channelCount))
                / Double(format.sampleRate)
            // Encoder delay and padding, and timestamps' rounding, stay far below this.
            if decoded < statedDuration - max(0.25, statedDuration * 0.02) {
                throw truncated(
                    "its header states \(String(format: "%.2f", statedDuration)) s but the file ends after "
                        + "\(String(format: "%.2f", decoded)) s")
            }
        }
    }

    private func truncated(_ detail: String) -> EarshotError {
        EarshotError(.invalidInput, "\(name): truncated \(container.displayName): \(detail); expected a complete file")
    }

    private func damaged(_ what: String, status: Int32) -> EarshotError {
        Self.error(
            name, "truncated or damaged \(container.displayName): \(what) after \(position) frames", status: status,
            expected: "a complete file", av: av)
    }

    /// An error naming the file, with FFmpeg's own reason: its last logged error if it gave one, else
    /// its error code's text.
    static func error(
        _ name: String, _ what: String, status: Int32, expected: String? = nil, av: earshot_ffmpeg
    ) -> EarshotError {
        var reason = String(cString: earshot_av_last_log()).trimmingCharacters(in: .whitespacesAndNewlines)
        if reason.isEmpty {
            var text = [CChar](repeating: 0, count: 128)
            _ = av.av_strerror(status, &text, text.count)
            reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let hint = expected.map { "; expected \($0)" } ?? ""
        return EarshotError(.invalidInput, "\(name): \(what) (\(reason))\(hint)")
    }

}

/// What one ``MediaFileSource`` holds of FFmpeg's, freed together however far opening got: the
/// descriptor it reads (closed last), the I/O context over it, the demuxer, the decoder, a packet
/// and a frame.
private final class Handles {
    let descriptor: Int32
    /// Where the demuxer's next read starts: reads go through `pread`, so the descriptor's own offset
    /// never matters.
    var offset: Int64 = 0
    var io: UnsafeMutablePointer<AVIOContext>?
    var formatContext: UnsafeMutablePointer<AVFormatContext>?
    var codecContext: UnsafeMutablePointer<AVCodecContext>?
    let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    let av: earshot_ffmpeg

    init(descriptor: Int32, functions av: earshot_ffmpeg) {
        self.descriptor = descriptor
        self.av = av
        // FFmpeg's allocations fail only when malloc does.
        packet = av.av_packet_alloc()!
        frame = av.av_frame_alloc()!
    }

    /// Opens the demuxer `container` names over the descriptor, with no probing and no other file
    /// or URL: `io_open` refuses every nested open (an MP4's external data references, say).
    func openInput(container: MediaContainer, name: String) throws {
        let bufferSize: Int32 = 1 << 16
        guard let buffer = av.av_malloc(Int(bufferSize)),
            let io = av.avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 0, Unmanaged.passUnretained(self).toOpaque(),
                { opaque, buffer, size in Handles.from(opaque).read(into: buffer, size: size) }, nil,
                { opaque, offset, whence in Handles.from(opaque).seek(to: offset, whence: whence) })
        else {
            throw EarshotError(.invalidInput, "\(name): cannot allocate a reader")
        }
        self.io = io
        guard let context = av.avformat_alloc_context() else {
            throw EarshotError(.invalidInput, "\(name): cannot allocate a demuxer")
        }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        context.pointee.io_open = { _, _, _, _, _ in -EPERM }
        let demuxer = av.av_find_input_format(container.demuxerName)
        var opening: UnsafeMutablePointer<AVFormatContext>? = context
        let status = av.avformat_open_input(&opening, nil, demuxer, nil)
        guard status >= 0, let opened = opening else {
            // FFmpeg has freed the context (not our I/O context).
            throw MediaFileSource.error(
                name, "not a readable \(container.displayName) file", status: status,
                expected: "a complete \(container.displayName) file", av: av)
        }
        formatContext = opened
    }

    deinit {
        if codecContext != nil { av.avcodec_free_context(&codecContext) }
        if formatContext != nil { av.avformat_close_input(&formatContext) }
        if let io {
            var buffer: UnsafeMutablePointer<UInt8>? = io.pointee.buffer
            av.av_freep(&buffer)
            var context: UnsafeMutablePointer<AVIOContext>? = io
            av.avio_context_free(&context)
        }
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av.av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av.av_frame_free(&frame)
        close(descriptor)
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> Handles {
        Unmanaged<Handles>.fromOpaque(opaque!).takeUnretainedValue()
    }

    /// The demuxer's read callback: at most `size` bytes from `offset`; FFmpeg's end-of-file code at the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>?, size: Int32) -> Int32 {
        while true {
            let got = pread(descriptor, buffer, Int(size), off_t(offset))
            if got > 0 {
                offset += Int64(got)
                return Int32(got)
            }
            if got == 0 { return earshot_averror_eof() }
            if errno != EINTR { return -errno }
        }
    }

    /// The demuxer's seek callback: `whence` as lseek's, or `AVSEEK_SIZE` for the file's size.
    func seek(to target: Int64, whence: Int32) -> Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return Int64(-errno) }
        let size = Int64(status.st_size)
        let position: Int64
        switch whence & ~Int32(AVSEEK_FORCE) {
        case Int32(AVSEEK_SIZE): return size
        case SEEK_SET: position = target
        case SEEK_CUR: position = offset + target
        case SEEK_END: position = size + target
        default: return Int64(-EINVAL)
        }
        guard position >= 0 else { return Int64(-EINVAL) }
        offset = position
        return position
    }
}
