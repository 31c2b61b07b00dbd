import EarshotCore
import EarshotTesting
import Foundation

@testable import EarshotIO

/// What the `wav` fuzz target runs on each input besides the streaming decoder, shared with
/// `WAVHeaderCheckFuzzRegressionTests`: the checks that guard libsndfile against truncated files —
/// the WAV chunk walk (which reads a file, so the input is written to one first, in /dev/shm when
/// there is one), and the MP3 frame walk and Ogg page walk on the same bytes. Malformed input must
/// end in an `EarshotError` or pass untouched; any other error is a finding.
enum WAVHeaderCheckFuzzEntry {
    private static let directory =
        FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()

    static func run(_ bytes: [UInt8]) throws {
        // A name of its own per call: the regression tests run in parallel.
        let unique = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        let path = "\(directory)/earshot-fuzz-\(unique).wav"
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw FuzzFinding("cannot write \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let checks: [(UnsafeRawBufferPointer) throws -> Void] = [
            { _ in try WAVHeaderCheck.validate(path: path, name: "fuzz input") },
            { try MP3FrameCheck.validate($0, name: "fuzz input") },
            { try OggPageCheck.validate($0, name: "fuzz input") },
        ]
        for check in checks {
            do {
                try bytes.withUnsafeBytes { try check($0) }
            } catch let error as EarshotError {
                guard error.code == .invalidInput else { throw FuzzFinding("unexpected error code: \(error)") }
            }
        }
    }
}
