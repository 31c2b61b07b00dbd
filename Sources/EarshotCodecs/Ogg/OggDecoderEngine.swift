import EarshotCore

/// A codec's side of an Ogg decoder: its header packets, its audio packets, and what its granule
/// positions mean.
protocol OggPacketDecoding: AnyObject {
    /// The decoded audio's format: known at creation, or once the identification header is read.
    var outputFormat: AudioFormat? { get }
    /// Reads header packet `index` (0 is the identification header); returns `true` while more
    /// header packets follow. Throws `.invalidInput` naming the packet's offset when it is malformed.
    func readHeader(_ packet: OggPacketReader.Packet, index: Int) throws -> Bool
    /// Samples to drop from the start of the decoded audio, asked when the first audio page is
    /// decoded. `excess` is how many more samples that page decoded to than its granule position
    /// says, or `nil` when the page is also the last (its excess is then end padding).
    func samplesToSkip(firstAudioPageExcess excess: Int?) -> Int
    /// Samples of output (after the start is dropped) once everything up to `granulePosition` is decoded.
    func outputSamples(atGranulePosition granulePosition: Int64) -> Int64
    /// Decodes one audio packet, appending its samples.
    func decode(_ packet: OggPacketReader.Packet, appendingTo samples: inout [Float]) throws
}

/// The Ogg half of an Ogg decoder: bytes in, trimmed audio out, shared by Ogg Speex and Ogg Opus.
///
/// Audio is decoded a page at a time, as soon as the page is complete: a page's granule position
/// and end-of-stream flag say how much of what its packets decode to is real (RFC 7845 §4.5 end
/// trimming), so nothing is held back past the page that brings it.
final class OggDecoderEngine<Codec: OggPacketDecoding> {
    let codec: Codec
    private let reader: OggPacketReader
    private var headerIndex = 0
    private var headersDone = false
    private var output: AudioBuffer
    /// Samples still to drop from the front; `nil` until known.
    private var pendingSkip: Int?
    private var emitted: Int64 = 0

    init(codec: Codec, name: String) {
        self.codec = codec
        reader = OggPacketReader(name: name)
        output = AudioBuffer(format: codec.outputFormat ?? .wideband)
        output.samples.reserveCapacity(4_096)
    }

    var name: String { reader.name }

    func process(_ bytes: [UInt8], into sink: inout StageOutput<AudioBuffer>) throws {
        try reader.feed(bytes)
        output.samples.removeAll(keepingCapacity: true)
        output.startFrame = emitted
        while let page = try reader.nextPage() {
            let pageStart = output.samples.count
            var decodedAudio = false
            while let packet = try reader.nextPacket() {
                if headersDone {
                    try codec.decode(packet, appendingTo: &output.samples)
                    decodedAudio = true
                } else {
                    headersDone = try !codec.readHeader(packet, index: headerIndex)
                    headerIndex += 1
                    if headersDone, let format = codec.outputFormat { output.format = format }
                }
            }
            if decodedAudio { trim(page, from: pageStart) }
        }
        emitted += Int64(output.samples.count)
        if !output.samples.isEmpty { sink.emit(output) }
    }

    func finish() throws {
        try reader.finish()
        guard headersDone else {
            throw EarshotError.malformedStream(
                name, at: 0, "stream ends before its header packets are complete",
                expected: "\(headerIndex == 0 ? "an identification" : "a comment") header")
        }
    }

    /// Drops the start skip and, on the last page, the end padding from the samples `page` decoded to.
    private func trim(_ page: OggPacketReader.Page, from pageStart: Int) {
        let decoded = output.samples.count - pageStart
        if pendingSkip == nil {
            let known = !page.isEndOfStream && page.granulePosition >= 0
            pendingSkip = max(
                0, codec.samplesToSkip(firstAudioPageExcess: known ? decoded - Int(page.granulePosition) : nil))
        }
        let drop = min(pendingSkip ?? 0, decoded)
        output.samples.removeSubrange(pageStart..<pageStart + drop)
        pendingSkip = (pendingSkip ?? 0) - drop
        guard page.isEndOfStream, page.granulePosition >= 0 else { return }
        let end = codec.outputSamples(atGranulePosition: page.granulePosition)
        let allowed = max(0, end - emitted - Int64(pageStart))
        let kept = output.samples.count - pageStart
        if Int64(kept) > allowed { output.samples.removeLast(kept - Int(allowed)) }
    }
}
