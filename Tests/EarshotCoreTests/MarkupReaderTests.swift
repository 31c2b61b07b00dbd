import EarshotCore
import EarshotTestTraits
import Testing

/// The one reader of clients' XML, on both of its uses' rules: grammars (a DOCTYPE skipped, a depth
/// setting named) and SSML (a DOCTYPE refused). The formats' own tests cover what each makes of the tree.
@Suite(.computing) struct MarkupReaderTests {
    static let grammar = MarkupReader(
        origin: "g.grxml", maximumDepth: 4, depthSetting: "max-grammar-depth", doctype: .skipped)
    static let ssml = MarkupReader(origin: "input", maximumDepth: 4, doctype: .refused)

    static func failure(_ reader: MarkupReader, _ document: String) -> String {
        do {
            let root = try reader.read(Array(document.utf8))
            return "parsed <\(root.name)>"
        } catch let error as EarshotError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func readsElementsAttributesTextAndReferences() throws {
        let document = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE grammar PUBLIC "-//W3C//DTD GRAMMAR 1.0//EN" "http://www.w3.org/TR/speech-grammar/grammar.dtd">
            <!-- a comment -->
            <g:grammar xmlns:g="urn:x" xml:lang="en-US" root='a
            b'><rule id="r">ace &amp; &#x4B;ing<![CDATA[ <raw> ]]></rule><empty/></g:grammar>
            """
        let root = try Self.grammar.read(Array(document.utf8))
        #expect(root.name == "grammar" && root.line == 4)
        #expect(root.attributes == ["xmlns:g": "urn:x", "xml:lang": "en-US", "root": "a b"])
        #expect(root.elements.map(\.name) == ["rule", "empty"])
        #expect(root.elements[0].text == "ace & King <raw> " && root.elements[0].line == 5)
    }

    @Test func aDoctypeIsSkippedForGrammarsAndRefusedForSSML() throws {
        let document = "<!DOCTYPE speak [ <!ELEMENT speak ANY> ]>\n<speak>hi</speak>"
        #expect(try Self.grammar.read(Array(document.utf8)).text == "hi")
        #expect(Self.failure(Self.ssml, document) == "input: line 1: a DOCTYPE; expected none")
    }

    @Test(arguments: [
        ("ten of clubs", "g.grxml: not well-formed XML at line 1: text outside the root element"),
        ("<a><b></a>", "g.grxml: not well-formed XML at line 1: </a> does not close an open element"),
        ("<a>\n<b>", "g.grxml: not well-formed XML at line 2: <b> (line 2) is never closed"),
        ("<a/><a/>", "g.grxml: not well-formed XML at line 1: content after the root element"),
        ("<a x='1' x='2'/>", "g.grxml: not well-formed XML at line 1: attribute 'x' repeated on <a>"),
        ("<a>&x;</a>", "g.grxml: line 1: the entity reference &x; is refused"),
        ("<a><?pi?></a>", "g.grxml: line 1: a processing instruction"),
        ("<?xml version='1.0' encoding='latin1'?><a/>", "the document declares encoding=\"latin1\""),
        (
            "<a><b><c><d><e/></d></c></b></a>",
            "g.grxml: line 1: elements are nested more than 4 deep; this service's limit is 4 (max-grammar-depth)"
        ),
    ])
    func malformedAndHostileDocumentsAreRefusedNamingTheLine(document: String, expected: String) {
        let message = Self.failure(Self.grammar, document)
        #expect(message.hasPrefix(expected) || message.contains(expected), "\(message)")
    }

    @Test func invalidUTF8IsRefusedBeforeAnyParse() {
        // `<\u{FF}a/>`: the five bytes that made Foundation's XMLParser trap.
        let error = #expect(throws: EarshotError.self) { try Self.ssml.read([0x3C, 0xFF, 0x61, 0x2F, 0x3E]) }
        #expect(error?.message == "input: the document is not valid UTF-8; expected UTF-8 XML")
    }
}
