/// What every output says about the input it describes — `info`, `level`, the transcripts — as its
/// source found it on opening: the name it was given, the container (or wire format) and sample
/// encoding, and the rate and channels as stored, before any resampling.
///
/// Encoded as `{"path", "container", "encoding", "sample_rate_hz", "channels"}`; the length is for
/// progress and is not encoded.
public struct InputDescription: Sendable, Equatable, Encodable {
    /// How outputs name it: the path given, or `stdin`.
    public var name: String
    /// The container or wire format (`WAV (Microsoft)`, `AMR-NB`, `raw`, …) and its sample encoding.
    public var container: String
    public var encoding: String
    public var sampleRate: Int
    public var channelCount: Int
    /// Its length in seconds, when the container states it before it is read.
    public var duration: Double?

    enum CodingKeys: String, CodingKey {
        case container, encoding
        case name = "path", sampleRate = "sample_rate_hz", channelCount = "channels"
    }

    public init(
        name: String, container: String, encoding: String, sampleRate: Int, channelCount: Int,
        duration: Double? = nil
    ) {
        self.name = name
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.duration = duration
    }
}
