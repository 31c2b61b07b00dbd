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
        try checkEntities(data, origin: origin)
        let builder = TreeBuilder(maximumDepth: maximumDepth)
        let parser = XMLParser(data: Data(data))
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if let (name, line) = builder.entityReference {
            throw entityError(name: name, line: line, origin: origin)
        }
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

extension MarkupElement {
    /// Refuses entities: a declaration (`<!ENTITY`), and a reference other than XML's five predefined
    /// ones (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;`) and character references (`&#…;`), checked before
    /// the XML parser sees a byte.
    ///
    /// `XMLParser` (libxml2, recovering from errors) turns an undeclared `&foo;` into nothing and a
    /// declared one into its text, so a grammar silently meant something other than what it showed (an
    /// item gone, a request answered "No Speech"). Neither SRGS nor PLS needs entities. With none
    /// declarable, any reference the parser still met would be undeclared: `TreeBuilder` refuses it
    /// too, naming it. Nothing external is ever fetched (`shouldResolveExternalEntities` is off and the
    /// resolving policy is never). Conservative, as for processing instructions: `&foo;` inside a
    /// comment or CDATA section is refused too.
    static func checkEntities(_ data: [UInt8], origin: String) throws {
        let declaration = Array("<!ENTITY".utf8)
        var line = 1
        var index = data.startIndex
        while index < data.endIndex {
            switch data[index] {
            case 0x0A:
                line += 1
            case 0x3C where data[index...].starts(with: declaration):  // "<!ENTITY"
                let rest = data[(index + declaration.count)...].drop { [0x20, 0x09, 0x0A, 0x0D, 0x25].contains($0) }
                let name = rest.prefix { isNameByte($0) }
                throw EarshotError(
                    .invalidInput,
                    "\(origin): line \(line): an entity declaration (<!ENTITY \(shown(name)) …); expected none: "
                        + "this service expands no entities (write the text itself, or a character reference &#…;)")
            case 0x26:  // "&"
                let name = data[(index + 1)...].prefix { isNameByte($0) }
                if !name.isEmpty, name.endIndex < data.endIndex, data[name.endIndex] == 0x3B,  // ";"
                    !["amp", "lt", "gt", "quot", "apos"].contains(String(decoding: name, as: UTF8.self))
                {
                    throw entityError(name: String(decoding: name, as: UTF8.self), line: line, origin: origin)
                }
            default:
                break
            }
            index += 1
        }
    }

    static func entityError(name: String, line: Int, origin: String) -> EarshotError {
        EarshotError(
            .invalidInput,
            "\(origin): line \(line): the entity reference &\(shown(name.utf8[...])); is refused; expected only &amp; &lt; "
                + "&gt; &quot; &apos; and character references (&#…;): this service expands no other entities")
    }

    /// An XML name's bytes: ASCII letters, digits, `_ : - .`, and anything beyond ASCII (UTF-8, which
    /// ``checkEncoding(_:origin:)`` has already checked).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x3A, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2D, 0x2E, 0x80...0xFF: true
        default: false
        }
    }

    /// A name as an error shows it: at most 64 characters, the client's own text.
    private static func shown<Bytes: Collection<UInt8>>(_ name: Bytes) -> String {
        let text = String(decoding: name, as: UTF8.self)
        return text.count > 64 ? String(text.prefix(64)) + "…" : text
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
    /// The first entity reference the parser could not resolve, and its line: none should get this far
    /// (``MarkupElement/checkEntities(_:origin:)``), but one that did would silently vanish.
    var entityReference: (name: String, line: Int)?

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

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        if entityReference == nil { entityReference = (name, parser.lineNumber) }
        return nil
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
