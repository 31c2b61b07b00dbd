import EarshotCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element read whole: the small documents of a request (SRGS grammars, PLS lexicons) are
/// easier to check as a tree than as parser callbacks. Names are local (any namespace prefix is
/// dropped): both formats are read by element name, whatever prefix a writer chose.
struct MarkupElement: Sendable, Equatable {
    var name: String
    var attributes: [String: String]
    var children: [MarkupNode]
    /// Line of the start tag, for error messages.
    var line: Int

    /// The elements among the children.
    var elements: [MarkupElement] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// All the text inside, elements included, in document order.
    var text: String {
        children.map {
            switch $0 {
            case .text(let text): text
            case .element(let element): element.text
            }
        }.joined()
    }

    /// Parses `data`; errors name `origin`, the line, and what the XML parser found.
    ///
    /// Elements nested deeper than `maximumDepth` stop the parse at once with an error naming the
    /// limit: the tree is built without recursion, but everything that reads it recurses, so its
    /// depth must be bounded by us and not by the client.
    static func parse(_ data: [UInt8], origin: String, maximumDepth: Int) throws -> MarkupElement {
        try checkEncoding(data, origin: origin)
        try checkProcessingInstructions(data, origin: origin)
        let builder = TreeBuilder(maximumDepth: maximumDepth)
        let parser = XMLParser(data: Data(data))
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if let line = builder.tooDeepAt {
            throw EarshotError(
                .invalidInput,
                "\(origin): line \(line): elements are nested more than \(maximumDepth) deep; this service's limit "
                    + "is \(maximumDepth) (max-grammar-depth)")
        }
        if !parsed || builder.root == nil {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "the document is empty"
            throw EarshotError(
                .invalidInput, "\(origin): not well-formed XML at line \(parser.lineNumber): \(reason)")
        }
        return builder.root!
    }
}

extension MarkupElement {
    /// Accepts UTF-8 (or its ASCII subset) only, checked before the XML parser sees a byte.
    ///
    /// Foundation's `XMLParser` traps — ending the process — when libxml2 hands it a name, comment or
    /// processing instruction that is not valid UTF-8 (found by fuzzing: `<\u{FF}a/>`, 5 bytes), and a
    /// document declaring another encoding is transcoded by libxml2 into exactly such strings. The
    /// formats' own specifications allow other encodings, but every grammar and lexicon tool writes
    /// UTF-8, so refusing the rest costs nothing and removes the trap.
    static func checkEncoding(_ data: [UInt8], origin: String) throws {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw EarshotError(.invalidInput, "\(origin): the document is not valid UTF-8; expected UTF-8 XML")
        }
        let head = String(decoding: data.prefix(256), as: UTF8.self)
        guard head.hasPrefix("<?xml"), let close = head.range(of: "?>") else { return }
        let declaration = head[..<close.lowerBound]
        guard let key = declaration.range(of: "encoding") else { return }
        let value = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = value.first, quote == "\"" || quote == "'" else { return }
        let name = value.dropFirst().prefix { $0 != quote }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else {
            throw EarshotError(
                .invalidInput, "\(origin): the document declares encoding=\"\(name)\"; expected UTF-8 XML")
        }
    }

    /// Refuses processing instructions other than the XML declaration at the start.
    ///
    /// `XMLParser` calls `strlen` on a null pointer for one without data (`<?x?>`, found by fuzzing),
    /// and neither SRGS nor PLS gives them any meaning. Conservative: `<?` inside a comment or CDATA
    /// section is refused too.
    static func checkProcessingInstructions(_ data: [UInt8], origin: String) throws {
        let opening: [UInt8] = [0x3C, 0x3F]  // "<?"
        var start = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0  // a byte-order mark
        if data[start...].starts(with: Array("<?xml".utf8)), data.count > start + 5,
            [0x20, 0x09, 0x0A, 0x0D].contains(data[start + 5])
        {
            start += 5
        }
        guard let found = data[start...].firstRange(of: opening) else { return }
        let line = data[..<found.lowerBound].filter { $0 == 0x0A }.count + 1
        throw EarshotError(
            .invalidInput,
            "\(origin): line \(line): a processing instruction (<?…?>); expected only the XML declaration")
    }
}

enum MarkupNode: Sendable, Equatable {
    case text(String)
    case element(MarkupElement)
}

private final class TreeBuilder: NSObject, XMLParserDelegate {
    private let maximumDepth: Int
    private var open: [MarkupElement] = []
    var root: MarkupElement?
    /// The line of the first element nested deeper than allowed, which ended the parse.
    var tooDeepAt: Int?

    init(maximumDepth: Int) { self.maximumDepth = maximumDepth }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard tooDeepAt == nil else { return }
        guard open.count < maximumDepth else {
            tooDeepAt = parser.lineNumber
            parser.abortParsing()
            return
        }
        var local: [String: String] = [:]
        for (name, value) in attributes { local[Self.localName(name)] = value }
        open.append(
            MarkupElement(name: Self.localName(elementName), attributes: local, children: [], line: parser.lineNumber))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard tooDeepAt == nil, let element = open.popLast() else { return }
        if open.isEmpty {
            root = element
        } else {
            open[open.count - 1].children.append(.element(element))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !open.isEmpty else { return }
        open[open.count - 1].children.append(.text(string))
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard !open.isEmpty else { return }
        open[open.count - 1].children.append(.text(String(decoding: block, as: UTF8.self)))
    }

    /// `xml:lang` keeps its name (it is not a namespace prefix a writer may choose); others lose it.
    private static func localName(_ name: String) -> String {
        if name.hasPrefix("xml:") || name.hasPrefix("xmlns") { return name }
        return name.split(separator: ":").last.map(String.init) ?? name
    }
}
