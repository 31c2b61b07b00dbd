public import EarshotWire
public import Foundation

/// The other two renderings of section 3.7: Speech to Text XML (`application/xml`), the same
/// fields as the JSON in the same nesting, and W3C EMMA 1.0 (`application/emma+xml`).
extension RecognitionDocument {
    /// The response formats of section 3.7.
    public enum Rendering: String, Sendable, CaseIterable {
        case json = "application/json"
        case xml = "application/xml"
        case emma = "application/emma+xml"

        /// The first type in `accept` this service renders; JSON (the default) when none is named.
        public init(accept: [String]) {
            let named = accept.flatMap { $0.split(separator: ",") }.compactMap {
                $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            }
            self = named.lazy.compactMap { Rendering(rawValue: $0) }.first ?? .json
        }
    }

    /// The document as `rendering` asks.
    public func rendered(as rendering: Rendering) throws -> Data {
        switch rendering {
        case .json: try encoded()
        case .xml: Data(xml.utf8)
        case .emma: Data(emma.utf8)
        }
    }

    /// Speech to Text XML: `<Recognition>` with the JSON's fields as elements, lists as repeated children.
    public var xml: String {
        let r = recognition
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<Recognition>"
        out += "<Status>\(Self.escaped(r.status))</Status><ResponseId>\(Self.escaped(r.responseID))</ResponseId>"
        out += "<Info><metrics><audioTime>\(r.info.metrics.audioTime)</audioTime>"
        out += "<audioBytes>\(r.info.metrics.audioBytes)</audioBytes></metrics></Info>"
        for best in r.nBest ?? [] {
            out += "<NBest><Hypothesis>\(Self.escaped(best.hypothesis))</Hypothesis>"
            out += "<LanguageId>\(best.languageID)</LanguageId><Confidence>\(best.confidence)</Confidence>"
            out += "<Grade>\(best.grade)</Grade><ResultText>\(Self.escaped(best.resultText))</ResultText><Words>"
            out += best.words.map { "<Word>\(Self.escaped($0))</Word>" }.joined()
            out += "</Words><WordScores>"
            out += best.wordScores.map { "<WordScore>\($0)</WordScore>" }.joined()
            out += "</WordScores></NBest>"
        }
        return out + "</Recognition>\n"
    }

    /// EMMA 1.0: one `emma:interpretation` per hypothesis inside an `emma:one-of`, or one marked
    /// `emma:no-input` when nothing was said. The ResponseId is the interpretation's id prefix.
    public var emma: String {
        let r = recognition
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<emma:emma version="1.0" xmlns:emma="http://www.w3.org/2003/04/emma">"#
        let duration = Int((r.info.metrics.audioTime * 1000).rounded())
        let common = #"emma:medium="acoustic" emma:mode="voice" emma:duration="\#(duration)""#
        guard let nBest = r.nBest, !nBest.isEmpty else {
            out += #"<emma:interpretation id="\#(r.responseID)" \#(common) emma:no-input="true"/>"#
            return out + "</emma:emma>\n"
        }
        out += #"<emma:one-of id="\#(r.responseID)" \#(common)>"#
        for (index, best) in nBest.enumerated() {
            out += #"<emma:interpretation id="\#(r.responseID)-\#(index + 1)" emma:confidence="\#(best.confidence)""#
            out += #" emma:tokens="\#(Self.escaped(best.hypothesis))" emma:lang="\#(best.languageID)">"#
            out += "<Hypothesis>\(Self.escaped(best.hypothesis))</Hypothesis><Grade>\(best.grade)</Grade>"
            out += "</emma:interpretation>"
        }
        return out + "</emma:one-of></emma:emma>\n"
    }

    /// Text safe inside an element or a double-quoted attribute.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
