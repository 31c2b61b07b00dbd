import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct CorpusTests {
    /// A corpus folder with one short WAV per name and `manifest` as its manifest.
    static func corpus(_ manifest: String, audio: [String] = ["a.wav", "b.wav"]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("earshot-corpus")
        for name in audio { try RecipeAudio.write([Float](repeating: 0, count: 16_000), to: directory.file(name)) }
        try directory.write(Array(manifest.utf8), to: "manifest.jsonl")
        return directory
    }

    static let good = """
        {"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":0.1,"end_s":0.5}],"tags":{}}
        {"schema_version":1,"path":"b.wav","duration_s":1,"speech":[],"tags":{"noise":"pink"}}

        """

    @Test func loadsAValidCorpus() throws {
        let directory = try Self.corpus(Self.good)
        defer { directory.remove() }
        let corpus = try Corpus.load(directory: directory.path)
        #expect(corpus.entries.map(\.path) == ["a.wav", "b.wav"])
        #expect(abs(corpus.totalSpeech - 0.4) < 1e-9)
        #expect(corpus.totalDuration == 2)
    }

    /// Each bad manifest, and the fragment of the message that must name its line and field.
    @Test(arguments: [
        ("{\"schema_version\":1,\"path\":\"a.wav\"", "line 1: malformed JSON"),
        (#"{"schema_version":1,"path":"a.wav","speech":[],"tags":{}}"#, "line 1, field duration_s: missing"),
        (#"{"path":"a.wav","duration_s":1,"speech":[],"tags":{}}"#, "line 1, field schema_version: missing"),
        (#"{"schema_version":2,"path":"a.wav","duration_s":1,"speech":[],"tags":{}}"#, "field schema_version: 2"),
        (#"{"schema_version":1,"path":"a.wav","duration_s":"1","speech":[],"tags":{}}"#, "field duration_s: expected"),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":0.1}],"tags":{}}"#,
            "field speech[0].end_s: missing"
        ),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":-0.1,"end_s":0.2}],"tags":{}}"#,
            "field speech[0].start_s: -0.1 is negative"
        ),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":0.1,"end_s":1.2}],"tags":{}}"#,
            "field speech[0].end_s: 1.2 is past duration_s 1"
        ),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":0.5,"end_s":0.6},{"start_s":0.1,"end_s":0.2}],"tags":{}}"#,
            "field speech[1].start_s: 0.1 is before the end of speech[0] (0.6): segments are unsorted"
        ),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":0.1,"end_s":0.6},{"start_s":0.5,"end_s":0.8}],"tags":{}}"#,
            "field speech[1].start_s: 0.5 is before the end of speech[0] (0.6): segments are overlapping"
        ),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[{"start_s":0.4,"end_s":0.3}],"tags":{}}"#,
            "field speech[0].end_s: 0.3 is not after start_s 0.4"
        ),
        (#"{"schema_version":1,"path":"../a.wav","duration_s":1,"speech":[],"tags":{}}"#, "line 1, field path:"),
        (#"{"schema_version":1,"path":"a.wav","duration_s":0,"speech":[],"tags":{}}"#, "field duration_s: 0"),
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[],"tags":{}}"# + "\n"
                + #"{"schema_version":1,"path":"a.wav","duration_s":1,"speech":[],"tags":{}}"#,
            "line 2, field path: a.wav is listed twice (first on line 1)"
        ),
        (
            #"{"schema_version":1,"path":"c.wav","duration_s":1,"speech":[],"tags":{}}"#,
            "line 1, field path: audio file"
        ),
        ("\n\n", "the corpus is empty"),
        // A label past the end of the audio: duration_s and the segment agree, the file does not.
        (
            #"{"schema_version":1,"path":"a.wav","duration_s":5,"speech":[{"start_s":0.5,"end_s":4}],"tags":{}}"#,
            "line 1, field duration_s: 5 s, but"
        ),
    ])
    func reportsFileLineAndField(manifest: String, expected: String) throws {
        let directory = try Self.corpus(manifest)
        defer { directory.remove() }
        let error = try thrownEarshotError { _ = try Corpus.load(directory: directory.path) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.hasPrefix(directory.file("manifest.jsonl")) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }

    @Test func reportsAMissingManifest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = try thrownEarshotError { _ = try Corpus.load(directory: directory.path) }
        #expect(error?.message.contains("manifest.jsonl: cannot read") == true)
    }
}
