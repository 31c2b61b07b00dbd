import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `--progress ndjson`: JSON lines on standard error a script can follow, ending with one `done`.
@Suite(.serialized, .computing) struct ProgressOptionTests {
    static let clips = (try? LibriVoxClips.load().map(\.path)) ?? []

    /// The JSON objects among standard error's lines (messages such as the batch summary are not JSON).
    static func events(_ standardError: String) throws -> [[String: Any]] {
        try standardError.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
    }

    @Test func transcribeReportsSecondsOfAudioAndEndsWithDone() throws {
        let result = try ExternalTool.run(
            [ExternalTool.earshotPath, "transcribe", "--progress", "ndjson", Self.clips[0], Self.clips[1]])
        #expect(result.status == 0, "\(result.standardError)")
        let events = try Self.events(result.standardError)
        #expect(events.filter { $0["event"] as? String == "done" }.count == 1)
        let last = try #require(events.last)
        #expect(last["event"] as? String == "done" && last["command"] as? String == "transcribe")
        #expect(last["fraction"] as? Double == 1)
        #expect((last["done_s"] as? Double) == (last["total_s"] as? Double))
        let done = events.compactMap { $0["done_s"] as? Double }
        #expect(done == done.sorted(), "progress never goes back")
        #expect(!result.output.isEmpty, "the transcript still goes to stdout")
    }

    @Test func vadCountsFilesAndNoneIsSilent() throws {
        let result = try ExternalTool.run(
            [ExternalTool.earshotPath, "vad", "--progress", "ndjson", "--format", "json"] + Self.clips)
        #expect(result.status == 0, "\(result.standardError)")
        let last = try #require(try Self.events(result.standardError).last)
        #expect(last["event"] as? String == "done" && last["phase"] as? String == "files")
        #expect(last["done"] as? Int == Self.clips.count && last["total"] as? Int == Self.clips.count)
        let quiet = try ExternalTool.run([ExternalTool.earshotPath, "vad", "--progress", "none", Self.clips[0]])
        #expect(quiet.status == 0 && quiet.standardError.isEmpty)
    }
}
