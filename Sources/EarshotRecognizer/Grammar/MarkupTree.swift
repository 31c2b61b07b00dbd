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
    static func parse(_ data: [UInt8], origin: String) throws -> MarkupElement {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(data))
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        if !parser.parse() || builder.root == nil {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "the document is empty"
            throw EarshotError(
                .invalidInput, "\(origin): not well-formed XML at line \(parser.lineNumber): \(reason)")
        }
        return builder.root!
    }
}

enum MarkupNode: Sendable, Equatable {
    case text(String)
    case element(MarkupElement)
}

private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var open: [MarkupElement] = []
    var root: MarkupElement?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        var local: [String: String] = [:]
        for (name, value) in attributes { local[Self.localName(name)] = value }
        open.append(
            MarkupElement(name: Self.localName(elementName), attributes: local, children: [], line: parser.lineNumber))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard let element = open.popLast() else { return }
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
