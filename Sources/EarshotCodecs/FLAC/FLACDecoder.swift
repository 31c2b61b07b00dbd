import CFLAC
public import EarshotCore

/// Decodes a native FLAC stream (`audio/flac`) fed in pieces split anywhere, with libFLAC.
///
/// Contract (see ``AudioDecoder``):
/// - Input: `fLaC`, STREAMINFO (8–24 bits per sample, 1–8 channels, a rate Earshot supports; checked
///   before libFLAC sees it), other metadata blocks (skipped without being buffered), then frames.
///   A stream from a non-seeking encoder, whose STREAMINFO gives no length, is fine.
/// - Output: buffers at the stream's rate and channel count, interleaved, sample x of a b-bit stream
///   as x / 2^(b−1) (so 16-bit is exactly ``PCM/float(_:)``); every frame completed by a call in one
///   buffer. Latency: a frame (4096 samples from libFLAC at its default levels) is decoded soon after
///   its last byte is here (see below).
/// - Errors: a wrong marker (byte 0), a bad STREAMINFO, a frame libFLAC cannot sync to, parse or
///   checksum (at the frame's offset), and at `finish` a stream that ends inside the header or a frame.
///
/// libFLAC pulls its input through a read callback, while this stage is pushed bytes. The callback
/// hands out what has arrived; when a frame needs more than that, it aborts, the decoder is flushed
/// and the frame is retried from its first byte once a quarter more bytes (and at least 256) are
/// buffered. Retries grow geometrically, so decoding work stays within a small multiple of the stream
/// however it is split (one byte at a time included, to the same samples); a frame is decoded in the
/// call that brings its last byte if the call ends on a frame boundary (as an encoder's packets do),
/// and otherwise at most a quarter of its size or 256 bytes later. Only the unfinished frame is kept.
/// Errors from callbacks are recorded and thrown when libFLAC returns.
public final class FLACDecoder: AudioDecoder {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    /// Names the stream in error messages: a file name or "request body".
    public let name: String
    /// Known once STREAMINFO has been read.
    public var outputFormat: AudioFormat? { header.format }

    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    private var header = FLACStreamHeader()
    /// Bytes for libFLAC from stream position `pendingBase` on (positions count libFLAC's view: our
    /// 42-byte header, then the frames).
    private var pending: [UInt8] = []
    private var pendingBase = 0
    /// Index in `pending` of the next byte the read callback hands out.
    private var cursor = 0
    /// Position just after the last frame decoded: where a retry starts.
    private var committed = 0
    /// Buffered bytes past `committed` needed before the next attempt.
    private var attemptThreshold = 1
    private var endOfInput = false
    private var callbackError: EarshotError?
    private var failure: EarshotError?
    private var framesWritten = 0
    private var scale: Float = 1
    private var output = AudioBuffer(format: .wideband)
    private var samplesDecoded: Int64 = 0

    public init(name: String) throws {
        guard let decoder = FLAC__stream_decoder_new() else {
            throw EarshotError(.invalidParameter, "\(name): libFLAC could not create a decoder")
        }
        self.decoder = decoder
        self.name = name
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = FLAC__stream_decoder_init_stream(
            decoder,
            { _, buffer, bytes, context in
                Unmanaged<FLACDecoder>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, count: bytes!)
            },
            nil,
            { _, position, context in
                position!.pointee = FLAC__uint64(
                    Unmanaged<FLACDecoder>.fromOpaque(context!).takeUnretainedValue().position)
                return FLAC__STREAM_DECODER_TELL_STATUS_OK
            },
            nil, nil,
            { _, frame, channels, context in
                Unmanaged<FLACDecoder>.fromOpaque(context!).takeUnretainedValue().write(frame!, channels!)
            },
            nil,
            { _, status, context in
                Unmanaged<FLACDecoder>.fromOpaque(context!).takeUnretainedValue().record(status)
            },
            context)
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            FLAC__stream_decoder_delete(decoder)
            throw EarshotError(
                .invalidParameter, "\(name): libFLAC refused to start decoding (init status \(status.rawValue))")
        }
    }

    deinit { FLAC__stream_decoder_delete(decoder) }

    public func process(_ input: [UInt8], into sink: inout StageOutput<AudioBuffer>) throws {
        if let failure { throw failure }
        output.samples.removeAll(keepingCapacity: true)
        try input.withUnsafeBufferPointer { bytes in
            var index = 0
            if !header.isComplete {
                try header.consume(bytes, from: &index, name: name)
                if header.isComplete { try startFrames() }
            }
            if index < bytes.count { pending.append(contentsOf: bytes[index...]) }
        }
        if header.isComplete { try decodeBufferedFrames() }
        emit(into: &sink)
    }

    public func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        if let failure { throw failure }
        output.samples.removeAll(keepingCapacity: true)
        guard header.isComplete else {
            throw EarshotError.malformedStream(
                name, at: header.byteCount, "the stream ends inside the FLAC header",
                expected: "the rest of the metadata blocks")
        }
        endOfInput = true
        try decodeBufferedFrames()
        if committed < pendingBase + pending.count { throw fail(truncationError()) }
        emit(into: &sink)
    }

    private func truncationError() -> EarshotError {
        EarshotError.malformedStream(
            name, at: streamOffset(committed),
            "the stream ends inside a frame, \(pendingBase + pending.count - committed) bytes into it",
            expected: "the rest of the frame (a truncated FLAC stream)")
    }

    /// Whether what follows the last complete frame starts like a frame (the 14-bit sync code 0x3FFE
    /// and a reserved 0 bit): if libFLAC then reports lost sync at the end of input, the last frame was cut short.
    private var unfinishedFrameFollows: Bool {
        let start = committed - pendingBase
        return pending.count - start >= 2 && pending[start] == 0xFF && pending[start + 1] & 0xFE == 0xF8
    }

    /// Hands libFLAC the validated STREAMINFO as the only metadata block.
    private func startFrames() throws {
        scale = 1 / Float(1 << (header.bitsPerSample - 1))
        output = AudioBuffer(format: header.format!)
        pending.append(contentsOf: header.streamInfoBlock)
        guard FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0, callbackError == nil else {
            throw fail(callbackError ?? libFLACError("reading STREAMINFO"))
        }
        committed = FLACStreamHeader.streamInfoEnd
        compact()
    }

    /// Decodes frames while enough bytes are buffered (or, at the end of input, until libFLAC is done).
    private func decodeBufferedFrames() throws {
        while endOfInput || pendingBase + pending.count - committed >= attemptThreshold {
            let before = framesWritten
            let ok = FLAC__stream_decoder_process_single(decoder) != 0
            let state = FLAC__stream_decoder_get_state(decoder)
            if let callbackError {
                // libFLAC reports a frame cut off by the end of the stream as lost sync.
                let cutShort = endOfInput && state == FLAC__STREAM_DECODER_END_OF_STREAM && unfinishedFrameFollows
                throw fail(cutShort ? truncationError() : callbackError)
            }
            if state == FLAC__STREAM_DECODER_ABORTED {
                // Ran out of bytes mid-frame: start the frame over once more have arrived.
                let available = pendingBase + pending.count - committed
                attemptThreshold = available + max(available / 4, 256)
                FLAC__stream_decoder_flush(decoder)
                cursor = committed - pendingBase
                return
            }
            if state == FLAC__STREAM_DECODER_END_OF_STREAM { return }
            guard ok else { throw fail(libFLACError("decoding")) }
            guard framesWritten > before else { return }
            var position: FLAC__uint64 = 0
            guard FLAC__stream_decoder_get_decode_position(decoder, &position) != 0 else {
                throw fail(libFLACError("locating a frame"))
            }
            // Try the next frame with whatever is here: a frame of silence can be a few bytes.
            attemptThreshold = 1
            committed = Int(position)
            compact()
        }
    }

    /// Drops bytes before the last frame boundary; what remains is at most a frame and its retries.
    private func compact() {
        let drop = committed - pendingBase
        guard drop > 0 else { return }
        pending.removeSubrange(0..<drop)
        pendingBase += drop
        cursor -= drop
    }

    private func emit(into sink: inout StageOutput<AudioBuffer>) {
        guard !output.isEmpty else { return }
        output.startFrame = samplesDecoded
        samplesDecoded += Int64(output.frameCount)
        sink.emit(output)
    }

    /// The offset in the caller's stream of a position in libFLAC's view of it.
    private func streamOffset(_ position: Int) -> Int {
        position - FLACStreamHeader.streamInfoEnd + header.byteCount
    }

    private func fail(_ error: EarshotError) -> EarshotError {
        failure = error
        return error
    }

    private func libFLACError(_ doing: String) -> EarshotError {
        let state = String(cString: FLAC__stream_decoder_get_resolved_state_string(decoder))
        return EarshotError.malformedStream(
            name, at: streamOffset(committed), "libFLAC failed \(doing) (\(state))", expected: "a valid FLAC frame")
    }

    // MARK: libFLAC callbacks

    private var position: Int { pendingBase + cursor }

    private func read(into buffer: UnsafeMutablePointer<FLAC__byte>, count: UnsafeMutablePointer<Int>)
        -> FLAC__StreamDecoderReadStatus
    {
        let available = pending.count - cursor
        guard available > 0 else {
            count.pointee = 0
            return endOfInput ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_ABORT
        }
        let taken = min(available, count.pointee)
        pending.withUnsafeBufferPointer { bytes in
            buffer.update(from: bytes.baseAddress! + cursor, count: taken)
        }
        cursor += taken
        count.pointee = taken
        return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    private func write(_ frame: UnsafePointer<FLAC__Frame>, _ channels: UnsafePointer<UnsafePointer<FLAC__int32>?>)
        -> FLAC__StreamDecoderWriteStatus
    {
        let frameHeader = frame.pointee.header
        guard let format = header.format, Int(frameHeader.channels) == format.channelCount,
            Int(frameHeader.bits_per_sample) == header.bitsPerSample
        else {
            callbackError = EarshotError(
                .unsupportedFormat,
                "\(name): the frame at byte \(streamOffset(committed)) has \(frameHeader.channels) channels of \(frameHeader.bits_per_sample) bits; STREAMINFO promised \(header.format?.channelCount ?? 0) of \(header.bitsPerSample)"
            )
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        let count = Int(frameHeader.blocksize)
        let stride = format.channelCount
        let base = output.samples.count
        output.samples.append(contentsOf: repeatElement(0, count: count * stride))
        output.samples.withUnsafeMutableBufferPointer { samples in
            for channel in 0..<stride {
                let source = channels[channel]!
                for k in 0..<count { samples[base + k * stride + channel] = Float(source[k]) * scale }
            }
        }
        framesWritten += 1
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    private func record(_ status: FLAC__StreamDecoderErrorStatus) {
        guard callbackError == nil else { return }
        let problem: String
        switch status {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: problem = "bytes that are not a FLAC frame (lost sync)"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: problem = "a corrupt frame header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: problem = "a frame whose CRC does not match"
        default: problem = "a frame libFLAC cannot parse (error status \(status.rawValue))"
        }
        callbackError = EarshotError.malformedStream(
            name, at: streamOffset(committed), problem, expected: "a valid FLAC frame")
    }
}
