import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The fixture reads Debian's transcription file as it is, and says which package is missing.
@Suite(.computing)
struct LibriVoxClipsTests {
    @Test func listsTheFiveClipsWithTheirTranscripts() throws {
        let clips = try LibriVoxClips.load()
        #expect(
            clips.map(\.id)
                == ["0870", "0880", "0890", "0920", "0930"].map { "sense_and_sensibility_01_austen_64kb-" + $0 })
        let clip = try #require(clips.first { $0.id.hasSuffix("0880") })
        #expect(clip.transcript == "he was not an ill disposed young man")
        #expect(clip.path == LibriVoxClips.directory + "/sense_and_sensibility_01_austen_64kb-0880.wav")
    }

    @Test func missingPackageIsNamed() {
        let error = #expect(throws: EarshotError.self) { try LibriVoxClips.load(from: "/nonexistent/librivox") }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("/nonexistent/librivox/transcription") == true)
        #expect(error?.message.contains("pocketsphinx-testdata") == true)
    }

    @Test func malformedLineIsNamed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-librivox-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "<s> a line without an id </s>\n".write(
            toFile: directory + "/transcription", atomically: true, encoding: .utf8)
        let error = #expect(throws: EarshotError.self) { try LibriVoxClips.load(from: directory) }
        #expect(error?.message.contains("line 1") == true)
    }
}
