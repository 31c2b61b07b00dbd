/// The one reader of XML a client sends (SRGS grammars, PLS lexicons, SSML): our own, small, and safe on
/// hostile input — no library parser that traps, no entity expansion, nothing fetched, depth bounded.
///
/// It reads UTF-8 XML: elements, attributes, text, XML's five predefined entities and character
/// references, comments, CDATA, the XML declaration, and (where ``Doctype/skipped``) a DOCTYPE, whose
/// external DTD is never read. It refuses, naming the line: another encoding; a processing instruction
/// other than the declaration; an entity declaration or a reference to any other entity, anywhere
/// (comments included — conservative, as a document with them means something other than it shows);
/// elements nested deeper than the limit; and anything malformed. Errors begin with `origin` (the file,
/// the request part, the field) and are ``EarshotError/Code/invalidInput``.
public struct MarkupReader: Sendable {
    /// What a DOCTYPE gets: grammars and lexicons often declare their W3C DTD, SSML requests do not.
    public enum Doctype: Sendable {
        /// Skipped, internal subset included (which may declare no entity).
        case skipped
        /// Refused, naming it.
        case refused
    }

    public let origin: String
    public let maximumDepth: Int
    /// The setting that raises ``maximumDepth``, named in the error (`max-grammar-depth`); nil for none.
    public let depthSetting: String?
    public let doctype: Doctype

    public init(origin: String, maximumDepth: Int, depthSetting: String? = nil, doctype: Doctype) {
        self.origin = origin
        self.maximumDepth = maximumDepth
        self.depthSetting = depthSetting
        self.doctype = doctype
    }

    /// The document's root element.
    public func read(_ data: [UInt8]) throws -> MarkupElement {
        try MarkupScreen.checkEncoding(data, origin: origin)
        try MarkupScreen.checkProcessingInstructions(data, origin: origin)
        try MarkupScreen.checkEntities(data, origin: origin)
        var parser = MarkupParser(reader: self, bytes: data)
        return try parser.parse()
    }
}

/// The parse itself, over bytes already screened (``MarkupScreen``).
private struct MarkupParser {
    let reader: MarkupReader
    let bytes: [UInt8]
    var index = 0
    var line = 1

    init(reader: MarkupReader, bytes: [UInt8]) {
        self.reader = reader
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a byte-order mark
    }

    mutating func parse() throws -> MarkupElement {
        // Stack of open elements; the root is returned when it closes.
        var stack: [MarkupElement] = []
        var root: MarkupElement?
        func close(_ element: MarkupElement) {
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(.element(element)) }
        }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                    if bytes[index] == 0x0A { line += 1 }
                    index += 1
                }
                let text = try decodeReferences(bytes[start..<index])
                if stack.isEmpty {
                    guard text.allSatisfy(\.isWhitespace) else { throw malformed("text outside the root element") }
                } else {
                    stack[stack.count - 1].children.append(.text(text))
                }
                continue
            }
            if starts(with: "<?") {
                try skip(past: "?>")  // the XML declaration: the screen refused any other instruction
            } else if starts(with: "<!--") {
                try skip(past: "-->")
            } else if starts(with: "<![CDATA[") {
                guard !stack.isEmpty else { throw malformed("CDATA outside the root element") }
                index += 9
                let start = index
                try skip(past: "]]>")
                stack[stack.count - 1].children.append(
                    .text(String(decoding: bytes[start..<(index - 3)], as: UTF8.self)))
            } else if starts(with: "<!DOCTYPE") {
                guard reader.doctype == .skipped else {
                    throw EarshotError(.invalidInput, "\(reader.origin): line \(line): a DOCTYPE; expected none")
                }
                guard stack.isEmpty, root == nil else { throw malformed("a DOCTYPE inside the document") }
                try skipDoctype()
            } else if starts(with: "<!") {
                throw malformed("a declaration (<!…) outside a DOCTYPE")
            } else if starts(with: "</") {
                index += 2
                let name = try readName()
                skipSpace()
                try expect(">")
                guard let open = stack.popLast(), open.name == Self.localName(name) else {
                    throw malformed("</\(name)> does not close an open element")
                }
                close(open)
            } else {
                guard root == nil else { throw malformed("content after the root element") }
                let startLine = line
                index += 1
                let name = try readName()
                var attributes: [String: String] = [:]
                while true {
                    skipSpace()
                    guard index < bytes.count else { throw malformed("unterminated <\(name)> tag") }
                    if bytes[index] == UInt8(ascii: ">") || starts(with: "/>") { break }
                    let attribute = try readName()
                    skipSpace()
                    try expect("=")
                    skipSpace()
                    let value = try readQuoted()
                    guard attributes.updateValue(value, forKey: Self.localName(attribute)) == nil else {
                        throw malformed("attribute '\(attribute)' repeated on <\(name)>")
                    }
                }
                let element = MarkupElement(
                    name: Self.localName(name), attributes: attributes, children: [], line: startLine)
                // An empty element counts as a level too: whatever reads the tree recurses into it.
                guard stack.count < reader.maximumDepth else {
                    let setting = reader.depthSetting.map { "; this service's limit is \(reader.maximumDepth) (\($0))" }
                    throw EarshotError(
                        .invalidInput,
                        "\(reader.origin): line \(startLine): elements are nested more than \(reader.maximumDepth) "
                            + "deep" + (setting ?? ""))
                }
                if starts(with: "/>") {
                    index += 2
                    close(element)
                } else {
                    index += 1
                    stack.append(element)
                }
            }
        }
        if let open = stack.last { throw malformed("<\(open.name)> (line \(open.line)) is never closed") }
        guard let root else { throw malformed("the document has no element") }
        return root
    }

    /// `xml:lang` and `xmlns…` keep their names (they are no prefix a writer may choose); others lose it.
    static func localName(_ name: String) -> String {
        if name.hasPrefix("xml:") || name.hasPrefix("xmlns") { return name }
        return name.split(separator: ":").last.map(String.init) ?? name
    }

    private func malformed(_ reason: String) -> EarshotError {
        EarshotError(.invalidInput, "\(reader.origin): not well-formed XML at line \(line): \(reason)")
    }

    private func starts(with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
    }

    private mutating func skip(past terminator: StaticString) throws {
        let startLine = line
        while index < bytes.count {
            if starts(with: terminator) {
                index += terminator.utf8CodeUnitCount
                return
            }
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }
        line = startLine
        throw malformed("'\(terminator)' never comes")
    }

    /// `<!DOCTYPE name …>`, with an internal subset in brackets if any (quoted strings may hold `>` or `]`).
    private mutating func skipDoctype() throws {
        let startLine = line
        var quote: UInt8?
        var inSubset = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x0A { line += 1 }
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: "]") {
                inSubset = false
            } else if byte == UInt8(ascii: ">"), !inSubset {
                return
            }
        }
        line = startLine
        throw malformed("the DOCTYPE never ends")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }
    }

    private mutating func expect(_ character: Character) throws {
        guard index < bytes.count, bytes[index] == character.asciiValue! else {
            throw malformed("expected '\(character)'")
        }
        index += 1
    }

    /// An XML name: ASCII letters, digits, `_ : - .`, and any non-ASCII character (UTF-8, already checked).
    private mutating func readName() throws -> String {
        let start = index
        while index < bytes.count, MarkupScreen.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw malformed("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted attribute value, its references replaced and its white space characters made spaces (as
    /// XML normalizes attribute values).
    private mutating func readQuoted() throws -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw malformed("expected a quoted attribute value")
        }
        let quote = bytes[index]
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != quote {
            guard bytes[index] != UInt8(ascii: "<") else { throw malformed("'<' in an attribute value") }
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }
        guard index < bytes.count else { throw malformed("unterminated attribute value") }
        let raw = bytes[start..<index].map { [0x09, 0x0A, 0x0D].contains($0) ? 0x20 : $0 }
        index += 1
        return try decodeReferences(raw[...])
    }

    /// Text with XML's five predefined entities and character references replaced (the screen refused
    /// every other reference).
    private func decodeReferences(_ raw: ArraySlice<UInt8>) throws -> String {
        let text = String(decoding: raw, as: UTF8.self)
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else {
                throw malformed("'&' that starts no reference (write &amp;)")
            }
            let name = rest[rest.index(after: amp)..<semicolon]
            switch name {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                var scalar: Unicode.Scalar?
                if name.hasPrefix("#x") {
                    scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                }
                guard let scalar else { throw malformed("'&\(name);' is not a character this reader knows") }
                result.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
