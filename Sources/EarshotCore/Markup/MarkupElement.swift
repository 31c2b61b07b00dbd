/// An XML element read whole by ``MarkupReader``: the small documents of a request (SRGS grammars, PLS
/// lexicons, SSML) are easier to check as a tree than as parser callbacks. Names are local (a namespace
/// prefix a writer chose is dropped; `xml:` and `xmlns` names keep theirs): every format here is read by
/// element name.
public struct MarkupElement: Sendable, Equatable {
    public var name: String
    public var attributes: [String: String]
    public var children: [MarkupNode]
    /// Line of the start tag, for error messages.
    public var line: Int

    public init(name: String, attributes: [String: String], children: [MarkupNode], line: Int) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.line = line
    }

    /// The elements among the children.
    public var elements: [MarkupElement] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// All the text inside, elements included, in document order.
    public var text: String {
        children.map {
            switch $0 {
            case .text(let text): text
            case .element(let element): element.text
            }
        }.joined()
    }
}

/// A child of a ``MarkupElement``: text (CDATA included, entities and character references replaced), or
/// an element.
public enum MarkupNode: Sendable, Equatable {
    case text(String)
    case element(MarkupElement)
}
