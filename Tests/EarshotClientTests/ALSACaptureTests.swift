import EarshotClient
import EarshotCore
import EarshotIO
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import EarshotVAD
import Foundation
import Testing

/// The real ALSA capture path without a sound card: an `asoundrc` defines a PCM of alsa-lib's
/// `file` plugin whose `infile` is a recording, so `snd_pcm_readi` returns that recording, then
/// the null device's silence.
@Suite(.serialized, .waiting) struct ALSACaptureTests {
    /// The device name, with `ALSA_CONFIG_PATH` pointing alsa-lib at a configuration that defines it.
    /// Set once for the process, before the first ALSA call (alsa-lib reads its configuration once).
    static let device: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-alsa-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let raw = directory.appendingPathComponent("card-004.s16le").path
        // The cards recording "five five" as the device will deliver it: 16-bit little-endian, 16 kHz mono.
        if let source = try? AudioFileSource(path: "\(CardsRecordings.directory)/004.wav") {
            var samples: [Float] = []
            while let block = try? source.read() { samples += block.samples }
            var pcm = [Int16](repeating: 0, count: samples.count)
            samples.withUnsafeBufferPointer { input in
                pcm.withUnsafeMutableBufferPointer { PCM.convert(input, to: $0) }
            }
            #expect(FileManager.default.createFile(atPath: raw, contents: pcm.withUnsafeBytes { Data($0) }))
        }
        let configuration = directory.appendingPathComponent("asoundrc").path
        let text = """
            pcm.earshot_test_mic {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(raw)"
                format "raw"
            }

            """
        #expect(FileManager.default.createFile(atPath: configuration, contents: Data(text.utf8)))
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:\(configuration)", 1)
        return "earshot_test_mic"
    }()

    @Test func captureReadsTheDeviceWithMediaTime() throws {
        let source = try ALSACaptureSource(device: Self.device, sampleRate: 16_000, channelCount: 1)
        #expect(source.format == (try AudioFormat(sampleRate: 16_000, channelCount: 1)))
        var next: Int64 = 0
        var energy: Float = 0
        for _ in 0..<50 {
            let block = try #require(try source.read())
            #expect(block.startFrame == next)
            #expect(block.frameCount == 320)
            next += Int64(block.frameCount)
            energy += block.samples.reduce(0) { $0 + $1 * $1 }
        }
        #expect(energy > 1)  // the recording, not the null device's silence
        source.stop()
        #expect(try source.read() == nil)
    }

    @Test func aMissingDeviceIsNoMicrophone() {
        _ = Self.device
        let error = #expect(throws: EarshotError.self) { try ALSACaptureSource(device: "earshot_no_such_device") }
        #expect(error?.code == .noMicrophone)
        #expect(error?.message.contains("earshot_no_such_device") == true)
    }

    @Test func aLiveInteractionFromTheALSADeviceIsRecognized() async throws {
        let device = Self.device
        let server = try await RunningService.start()
        var configuration = SpeechClientTests.configuration(server)
        configuration.endpointing = try .init(maxRecordingTime: 6)
        let client = try SpeechClient(configuration: configuration)
        let interaction = try client.startListening { try ALSACaptureSource(device: device) }
        let events = await SpeechClientTests.collect(interaction)
        let response = try #require(try SpeechClientTests.outcome(events)?.get())
        #expect(response.strings.first == "five five")
        try await client.shutdown()
        try await server.stop()
    }
}
