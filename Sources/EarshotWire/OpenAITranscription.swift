/// The JSON of OpenAI's audio transcription API (`POST /v1/audio/transcriptions`, `GET /v1/models`),
/// as typed `Codable` values: written by Earshot's service and read by its client, so both sides
/// agree by construction. Only Foundation's coding; no networking here.
public enum OpenAITranscription {
    /// `response_format=json`: `{"text": …}`.
    public struct Plain: Codable, Sendable, Equatable {
        public var text: String

        public init(text: String) { self.text = text }
    }

    /// One segment of `verbose_json`. Whisper's `tokens`, `compression_ratio` and `no_speech_prob`
    /// are optional: Earshot's recognizer has no counterpart and leaves them out.
    public struct Segment: Codable, Sendable, Equatable {
        public var id: Int
        /// The segment's start in 10 ms frames.
        public var seek: Int?
        public var start: Double
        public var end: Double
        public var text: String
        public var temperature: Double?
        public var avgLogprob: Double?
        public var noSpeechProb: Double?

        public init(
            id: Int, seek: Int? = nil, start: Double, end: Double, text: String, temperature: Double? = nil,
            avgLogprob: Double? = nil, noSpeechProb: Double? = nil
        ) {
            self.id = id
            self.seek = seek
            self.start = start
            self.end = end
            self.text = text
            self.temperature = temperature
            self.avgLogprob = avgLogprob
            self.noSpeechProb = noSpeechProb
        }

        enum CodingKeys: String, CodingKey {
            case id, seek, start, end, text, temperature
            case avgLogprob = "avg_logprob"
            case noSpeechProb = "no_speech_prob"
        }
    }

    /// One word of `verbose_json` (with `timestamp_granularities[]=word`), times in seconds.
    public struct Word: Codable, Sendable, Equatable {
        public var word: String
        public var start: Double
        public var end: Double

        public init(word: String, start: Double, end: Double) {
            self.word = word
            self.start = start
            self.end = end
        }
    }

    /// `response_format=verbose_json`.
    public struct Verbose: Codable, Sendable, Equatable {
        public var task: String?
        public var language: String?
        public var duration: Double?
        public var text: String
        public var segments: [Segment]?
        public var words: [Word]?

        public init(
            task: String? = "transcribe", language: String?, duration: Double?, text: String,
            segments: [Segment]? = nil, words: [Word]? = nil
        ) {
            self.task = task
            self.language = language
            self.duration = duration
            self.text = text
            self.segments = segments
            self.words = words
        }
    }

    /// An error answer: `{"error": {"message", "type", "param", "code"}}`; `param` and `code` are
    /// written as `null` when absent, as OpenAI writes them.
    public struct ErrorBody: Codable, Sendable, Equatable {
        public struct Detail: Codable, Sendable, Equatable {
            public var message: String
            public var type: String?
            public var param: String?
            public var code: String?

            public init(message: String, type: String?, param: String?, code: String?) {
                self.message = message
                self.type = type
                self.param = param
                self.code = code
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(message, forKey: .message)
                try container.encode(type, forKey: .type)
                try container.encode(param, forKey: .param)
                try container.encode(code, forKey: .code)
            }
        }

        public var error: Detail

        public init(error: Detail) { self.error = error }
    }

    /// `GET /v1/models`.
    public struct ModelList: Codable, Sendable, Equatable {
        public struct Model: Codable, Sendable, Equatable {
            public var id: String
            public var object: String
            public var created: Int
            public var ownedBy: String
            /// ISO-639-1 codes of the languages the model transcribes (Earshot's addition; nil from a
            /// service that does not say).
            public var languages: [String]?

            public init(id: String, created: Int, ownedBy: String = "earshot", languages: [String]? = nil) {
                self.id = id
                object = "model"
                self.created = created
                self.ownedBy = ownedBy
                self.languages = languages
            }

            enum CodingKeys: String, CodingKey {
                case id, object, created, languages
                case ownedBy = "owned_by"
            }
        }

        public var object: String
        public var data: [Model]

        public init(data: [Model]) {
            object = "list"
            self.data = data
        }
    }
}
