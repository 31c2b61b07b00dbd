import EarshotCore
import Foundation

/// Speech segments as a Kaldi data directory: `segments` (`utt rec start end`), `wav.scp` (`rec path`),
/// `utt2spk` and `spk2utt`, in the shape Kaldi's `utils/validate_data_dir.sh --no-text --no-feats`
/// accepts.
///
/// - A recording's id is its RTTM id (``RTTM/fileID(forPath:)``, escaped by ``RTTM/escaped(_:)``), so
///   the ids carry no whitespace and match `vad --format rttm` and `corpus export`.
/// - An utterance's id is `REC-SSSSSSSS-EEEEEEEE`, its start and end in milliseconds, zero-padded.
/// - With no speaker information, each utterance is its own speaker (Kaldi's advice for that case), so
///   `utt2spk` and `spk2utt` agree in any sort order.
/// - Every file is sorted by its first field in bytewise ("C" locale) order, with unique keys, as
///   Kaldi's tools require.
public struct KaldiDataDirectory: Sendable {
    /// One recording: its id (unescaped), the path `wav.scp` gives for it, and its speech segments.
    public struct Recording: Sendable, Equatable {
        public var fileID: String
        public var path: String
        public var segments: [LabeledSegment]

        public init(fileID: String, path: String, segments: [LabeledSegment]) {
            self.fileID = fileID
            self.path = path
            self.segments = segments
        }
    }

    /// One line of `segments`.
    public struct Utterance: Sendable, Equatable {
        public var id: String
        public var recordingID: String
        public var segment: LabeledSegment
    }

    public private(set) var recordings: [(id: String, path: String)]
    public private(set) var utterances: [Utterance]

    /// Throws when two recordings would share an id, naming both paths.
    public init(_ recordings: [Recording]) throws {
        var seen: [String: String] = [:]
        var scp: [(id: String, path: String)] = []
        var utterances: [Utterance] = []
        for recording in recordings {
            let id = RTTM.escaped(recording.fileID)
            if let first = seen[id] {
                throw EarshotError(
                    .invalidParameter,
                    "\(first) and \(recording.path) would share the Kaldi recording id \(id); rename one")
            }
            seen[id] = recording.path
            scp.append((id, recording.path))
            for segment in recording.segments {
                let utterance = "\(id)-\(Self.milliseconds(segment.start))-\(Self.milliseconds(segment.end))"
                utterances.append(Utterance(id: utterance, recordingID: id, segment: segment))
            }
        }
        self.recordings = scp.sorted { Self.bytewise($0.id, $1.id) }
        self.utterances = utterances.sorted { Self.bytewise($0.id, $1.id) }
    }

    /// `segments`: `utt rec start end`, seconds with three decimals.
    public var segmentsText: String {
        utterances.map {
            "\($0.id) \($0.recordingID) \(SegmentFormat.seconds($0.segment.start)) "
                + "\(SegmentFormat.seconds($0.segment.end))\n"
        }.joined()
    }

    /// `wav.scp`: `rec path`. Kaldi reads the rest of the line as the file name, so a path may hold spaces,
    /// but not a line break, nor end in `|` (a pipe) or whitespace.
    public var wavScpText: String { recordings.map { "\($0.id) \($0.path)\n" }.joined() }

    /// `utt2spk`: each utterance its own speaker.
    public var utt2spkText: String { utterances.map { "\($0.id) \($0.id)\n" }.joined() }

    /// `spk2utt`: each speaker's one utterance.
    public var spk2uttText: String { utt2spkText }

    /// The names of the directory's files, in the order ``files`` gives them.
    public static let fileNames = ["segments", "wav.scp", "utt2spk", "spk2utt"]

    /// The files of the directory, by name.
    public var files: [(name: String, text: String)] {
        Array(zip(Self.fileNames, [segmentsText, wavScpText, utt2spkText, spk2uttText]))
    }

    /// Checks a path `wav.scp` can name: Kaldi would read a trailing `|` as a command and drops trailing
    /// whitespace; a line break would split the entry.
    public static func checkPath(_ path: String) throws {
        if path.contains(where: \.isNewline) || path.hasSuffix("|") || path.last?.isWhitespace == true {
            throw EarshotError(
                .invalidParameter,
                "\(path): cannot be named in a Kaldi wav.scp (a line break, a trailing '|' or trailing whitespace); "
                    + "expected a plain file path")
        }
    }

    static func milliseconds(_ seconds: Double) -> String {
        let value = Int((seconds * 1000).rounded())
        let digits = String(value)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// Bytewise order of UTF-8, as `LC_ALL=C sort` orders lines.
    static func bytewise(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}
