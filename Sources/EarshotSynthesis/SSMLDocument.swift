import EarshotCore

/// An SSML element read whole by our own small XML reader: SSML requests are small (see
/// ``SpeechScript/Limits/ssmlBytes``) and use plain XML, so the reader takes elements, attributes,
/// text, the five predefined entities and character references, comments, CDATA and an XML
/// declaration — and refuses a DOCTYPE (no entity expansion, no external fetch), processing
/// instructions and anything malformed, naming the line.
struct SSMLElement: Sendable, Equatable {
    var name: String
    var attributes: [String: String]
    var children: [SSMLNode]
    var line: Int

    /// All the text inside, elements included, in document order.
    var text: String {
        children.map {
            switch $0 {
            case .text(let text): text
            case .element(let element): element.text
            }
        }.joined()
    }
}

enum SSMLNode: Sendable, Equatable {
    case text(String)
    case element(SSMLElement)
}

struct SSMLDocumentReader {
    let field: String
    /// Elements nested deeper than this are refused (the tree is read recursively afterwards).
    static let maximumDepth = 32

    private var bytes: [UInt8] = []
    private var index = 0
    private var line = 1

    init(field: String) { self.field = field }

    mutating func read(_ data: [UInt8]) throws -> SSMLElement {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw error("the document is not valid UTF-8; expected UTF-8 XML")
        }
        bytes = data
        index = 0
        line = 1
        // Stack of open elements; the root is returned when it closes.
        var stack: [SSMLElement] = []
        var root: SSMLElement?
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<") {
                if starts(with: "<?") {
                    guard stack.isEmpty, root == nil, starts(with: "<?xml"), line == 1 else {
                        throw error("line \(line): processing instructions are not accepted")
                    }
                    try skip(past: "?>")
                } else if starts(with: "<!--") {
                    try skip(past: "-->")
                } else if starts(with: "<![CDATA[") {
                    guard !stack.isEmpty else { throw error("line \(line): text outside the <speak> element") }
                    index += 9
                    let start = index
                    try skip(past: "]]>")
                    let text = String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
                    stack[stack.count - 1].children.append(.text(text))
                } else if starts(with: "<!") {
                    throw error("line \(line): DOCTYPE and other declarations are not accepted")
                } else if starts(with: "</") {
                    index += 2
                    let name = try readName()
                    skipSpace()
                    try expect(">")
                    guard let open = stack.popLast(), localName(open.name) == name else {
                        throw error("line \(line): </\(name)> does not close an open element")
                    }
                    let element = SSMLElement(
                        name: open.name, attributes: open.attributes, children: open.children, line: open.line)
                    if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(.element(element)) }
                } else {
                    guard root == nil else { throw error("line \(line): content after the root element") }
                    index += 1
                    let startLine = line
                    let name = try readName()
                    var attributes: [String: String] = [:]
                    while true {
                        skipSpace()
                        guard index < bytes.count else { throw error("line \(line): unterminated <\(name)> tag") }
                        if bytes[index] == UInt8(ascii: ">") || starts(with: "/>") { break }
                        let attribute = try readName()
                        skipSpace()
                        try expect("=")
                        skipSpace()
                        let value = try readQuoted()
                        guard attributes[localName(attribute)] == nil else {
                            throw error("line \(line): attribute '\(attribute)' repeated on <\(name)>")
                        }
                        attributes[localName(attribute)] = value
                    }
                    let element = SSMLElement(name: localName(name), attributes: attributes, children: [], line: startLine)
                    if starts(with: "/>") {
                        index += 2
                        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(.element(element)) }
                    } else {
                        index += 1
                        guard stack.count < Self.maximumDepth else {
                            throw error("line \(startLine): elements are nested more than \(Self.maximumDepth) deep")
                        }
                        stack.append(element)
                    }
                }
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
                    if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                    index += 1
                }
                let text = try decodeEntities(bytes[start..<index])
                if stack.isEmpty {
                    guard text.allSatisfy(\.isWhitespace) else {
                        throw error("line \(line): text outside the <speak> element")
                    }
                } else {
                    stack[stack.count - 1].children.append(.text(text))
                }
            }
        }
        guard stack.isEmpty else { throw error("<\(stack.last!.name)> (line \(stack.last!.line)) is never closed") }
        guard let root else { throw error("the document has no element; expected <speak>") }
        return root
    }

    private func localName(_ name: String) -> String {
        name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name
    }

    private func error(_ message: String) -> EarshotError {
        EarshotError(.invalidInput, "\(field): \(message)")
    }

    private func starts(with prefix: String) -> Bool {
        let utf8 = Array(prefix.utf8)
        return index + utf8.count <= bytes.count && bytes[index..<(index + utf8.count)].elementsEqual(utf8)
    }

    private mutating func skip(past terminator: String) throws {
        let startLine = line
        while index < bytes.count {
            if starts(with: terminator) {
                index += terminator.utf8.count
                return
            }
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
        throw error("line \(startLine): '\(terminator)' never comes")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            if bytes[index] == 0x0A { line += 1 }
            index += 1
        }
    }

    private mutating func expect(_ character: Character) throws {
        guard index < bytes.count, bytes[index] == character.asciiValue! else {
            throw error("line \(line): expected '\(character)'")
        }
        index += 1
    }

    private mutating func readName() throws -> String {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let isName =
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: ".")
            guard isName else { break }
            index += 1
        }
        guard index > start else { throw error("line \(line): expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func readQuoted() throws -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw error("line \(line): expected a quoted attribute value")
        }
        let quote = bytes[index]
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != quote {
            guard bytes[index] != UInt8(ascii: "<") else { throw error("line \(line): '<' in an attribute value") }
            index += 1
        }
        guard index < bytes.count else { throw error("line \(line): unterminated attribute value") }
        let value = try decodeEntities(bytes[start..<index])
        index += 1
        return value
    }

    private func decodeEntities(_ raw: ArraySlice<UInt8>) throws -> String {
        let text = String(decoding: raw, as: UTF8.self)
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else {
                throw error("line \(line): '&' that starts no entity (write &amp;)")
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
                if name.hasPrefix("#x") { scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init) }
                else if name.hasPrefix("#") { scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init) }
                guard let scalar else { throw error("line \(line): unknown entity '&\(name);'") }
                result.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
