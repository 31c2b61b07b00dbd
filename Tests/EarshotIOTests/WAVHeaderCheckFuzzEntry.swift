import EarshotCore
import EarshotTesting
import Foundation

@testable import EarshotIO

/// What the `wav` fuzz target runs on each input besides the streaming decoder, shared with
/// `WAVHeaderCheckFuzzRegressionTests`: the checks that guard libsndfile against truncated files —
/// the WAV chunk walk, the MP3 frame walk and the Ogg page walk, each over the input's bytes as
/// `InputFile` maps a file. Malformed input must end in an `EarshotError` or pass untouched; any
/// other error is a finding.
enum WAVHeaderCheckFuzzEntry {
    static func run(_ bytes: [UInt8]) throws {
        let checks: [(UnsafeRawBufferPointer) throws -> Void] = [
            { try WAVHeaderCheck.validate($0, name: "fuzz input") },
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
