import Foundation

/// What ``MarkupReader`` refuses before it parses a byte, each with its own message: the checks look at
/// the whole document (comments and CDATA included), so nothing they refuse can hide from them.
enum MarkupScreen {
    /// Accepts UTF-8 (or its ASCII subset) only: every grammar, lexicon and SSML tool writes it, and a
    /// document that declares another encoding would be read as something other than it shows.
    static func checkEncoding(_ data: [UInt8], origin: String) throws {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw EarshotError(.invalidInput, "\(origin): the document is not valid UTF-8; expected UTF-8 XML")
        }
        let head = String(decoding: data.prefix(256), as: UTF8.self)
        guard head.hasPrefix("<?xml") || head.hasPrefix("\u{FEFF}<?xml"), let close = head.range(of: "?>") else {
            return
        }
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

    /// Refuses processing instructions other than the XML declaration at the start: none of the formats
    /// gives them a meaning.
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

    /// Refuses entities: a declaration (`<!ENTITY`), and a reference other than XML's five predefined
    /// ones (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;`) and character references (`&#…;`). None of the
    /// formats needs them, and an expanded one makes a document mean what it does not show.
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
                    "\(origin): line \(line): an entity declaration (<!ENTITY \(shown(name)) …) in the DOCTYPE; "
                        + "expected none: this service expands no entities (write the text itself, or a character "
                        + "reference &#…;)")
            case 0x26:  // "&"
                let name = data[(index + 1)...].prefix { isNameByte($0) }
                if !name.isEmpty, name.endIndex < data.endIndex, data[name.endIndex] == 0x3B,  // ";"
                    !["amp", "lt", "gt", "quot", "apos"].contains(String(decoding: name, as: UTF8.self))
                {
                    throw EarshotError(
                        .invalidInput,
                        "\(origin): line \(line): the entity reference &\(shown(name)); is refused; expected only "
                            + "&amp; &lt; &gt; &quot; &apos; and character references (&#…;): this service expands "
                            + "no other entities")
                }
            default:
                break
            }
            index += 1
        }
    }

    /// An XML name's bytes: ASCII letters, digits, `_ : - .`, and anything beyond ASCII (UTF-8, which
    /// ``checkEncoding(_:origin:)`` has already checked).
    static func isNameByte(_ byte: UInt8) -> Bool {
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
