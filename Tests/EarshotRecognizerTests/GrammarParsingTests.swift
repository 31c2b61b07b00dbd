import EarshotCore
import EarshotRecognizer
import EarshotTesting
import EarshotTestTraits
import Testing

@Suite(.computing) struct GrammarParsingTests {
    static func grammar(_ rules: String, root: String = "main", attributes: String = "") throws -> RecognitionGrammar {
        try RecognitionGrammar(
            srgs: Array(
                """
                <?xml version="1.0"?>
                <grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" root="\(root)" \(attributes)>
                \(rules)
                </grammar>
                """.utf8), origin: "test.grxml")
    }

    static func failure(_ rules: String, root: String = "main", attributes: String = "") -> String {
        do {
            _ = try grammar(rules, root: root, attributes: attributes)
            return "parsed"
        } catch let error as EarshotError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func cardsGrammarParsesWithItsWholeVocabulary() throws {
        let grammar = try RecognitionGrammar(srgs: try CardsRecordings.grammar())
        #expect(grammar.root == "cards")
        #expect(grammar.rules.map(\.id) == ["cards", "card", "suit", "rank"])
        #expect(grammar.vocabulary.count == 13 + 4 + 1)
        #expect(grammar.vocabulary.contains("diamonds") && grammar.vocabulary.contains("of"))
    }

    @Test func textTokensItemsAndRepeatsBecomeJSGF() throws {
        let grammar = try Self.grammar(
            """
            <rule id="main" scope="public">Call <item repeat="0-1">Doctor</item> <ruleref uri="#name"/>
              <item repeat="1-">please</item> <item repeat="2-4">now</item> <item repeat="0-">very</item>
              <tag>out = "call"</tag><token>New York</token>
            </rule>
            <rule id="name"><one-of><item weight="2">smith</item><item>jones</item></one-of></rule>
            """)
        #expect(grammar.vocabulary == ["call", "doctor", "jones", "new", "now", "please", "smith", "very", "york"])
        let jsgf = grammar.jsgf(name: "g")
        #expect(jsgf.hasPrefix("#JSGF V1.0;\n\ngrammar g;\n"))
        #expect(
            jsgf.contains(
                "public <r0_main> = call [(doctor)] <r1_name> (please)+ (now) (now) [(now) [(now)]] (very)* (new york);"))
        #expect(jsgf.contains("<r1_name> = /2/ smith | /1/ jones;"))
    }

    @Test func onlyTheRootIsPublicAndComesFirst() throws {
        let grammar = try Self.grammar(
            """
            <rule id="helper" scope="public">yes</rule>
            <rule id="main.rule-1"><ruleref uri="#helper"/> <ruleref special="NULL"/></rule>
            """, root: "main.rule-1")
        let lines = grammar.jsgf().split(separator: "\n").filter { $0.hasPrefix("public") || $0.hasPrefix("<") }
        #expect(lines == ["public <r1_main_rule_1> = <r0_helper> <NULL>;", "<r0_helper> = yes;"])
    }

    @Test func singleRuleNeedsNoRoot() throws {
        let grammar = try RecognitionGrammar(
            srgs: Array("<grammar><rule id='only'>yes</rule></grammar>".utf8))
        #expect(grammar.root == "only")
    }

    @Test(arguments: [
        ("<rule id='main'>a</rule>", "mode=\"dtmf\"", "mode=\"dtmf\" is not supported"),
        ("<rule id='main'><ruleref uri='other.grxml#x'/></rule>", "", "refers to another document"),
        ("<rule id='main'><ruleref uri='#missing'/></rule>", "", "\"#missing\", which is not a rule"),
        ("<rule id='main'><item repeat='3-1'>a</item></rule>", "", "repeat=\"3-1\""),
        ("<rule id='main'><item repeat='1-1000'>a</item></rule>", "", "more than 50 repetitions"),
        ("<rule id='main'><item repeat='x'>a</item></rule>", "", "repeat=\"x\"; expected n, n-m or n-"),
        ("<rule id='main'><one-of>a</one-of></rule>", "", "<one-of> may hold only <item>"),
        ("<rule id='main'><one-of><item weight='-1'>a</item></one-of></rule>", "", "weight=\"-1\""),
        ("<rule id='main'><foo/></rule>", "", "unexpected <foo>"),
        ("<rule id='main'>a</rule><rule id='main'>b</rule>", "", "rule \"main\" is defined twice"),
        ("<rule>a</rule>", "", "a <rule> has no id"),
        ("<rule id='other'>a</rule>", "", "root=\"main\" names no rule"),
        ("<rule id='main'>a</rule><lexicon uri='x.pls'/>", "", "x-dictionary"),
    ])
    func invalidGrammarsAreRefusedWithTheLineAndTheConstruct(rules: String, attributes: String, expected: String) {
        let message = Self.failure(rules, attributes: attributes)
        #expect(message.contains(expected), "\(message)")
        #expect(message.hasPrefix("test.grxml: line "), "\(message)")
    }

    @Test func textThatIsNotXMLIsRefused() {
        let error = #expect(throws: EarshotError.self) {
            try RecognitionGrammar(srgs: Array("ten of clubs".utf8), origin: "x-grammar part")
        }
        #expect(error?.message.contains("x-grammar part: not well-formed XML") == true)
    }

    /// Entities are refused, not expanded into nothing (or into text the grammar does not show): XML's
    /// five predefined ones and character references remain.
    @Test(arguments: [
        ("<rule id='main'><item>&foo;</item></rule>", "test.grxml: line 3: the entity reference &foo;"),
        ("<rule id='main'>\n<item>ace</item>\n<item weight='&w;'>king</item></rule>", "test.grxml: line 5: the entity reference &w;"),
        ("<rule id='main'><!-- &old; --><item>ace</item></rule>", "test.grxml: line 3: the entity reference &old;"),
        ("<rule id='main'><item>ace &#38; &apos;&foo;</item></rule>", "test.grxml: line 3: the entity reference &foo;"),
        ("<rule id='main'><item>&\(String(repeating: "n", count: 100));</item></rule>",
         "test.grxml: line 3: the entity reference &\(String(repeating: "n", count: 64))…;"),
    ])
    func entityReferencesAreRefusedNamingThem(rules: String, expected: String) {
        let message = Self.failure(rules)
        #expect(message.hasPrefix(expected), "\(message)")
        #expect(message.contains("expected only &amp; &lt; &gt; &quot; &apos; and character references"), "\(message)")
    }

    @Test(arguments: [
        ("<!DOCTYPE grammar [<!ENTITY foo \"ace\">]>", "<item>&foo;</item>", "an entity declaration (<!ENTITY foo …)"),
        ("<!DOCTYPE grammar [\n<!ENTITY foo SYSTEM \"file:///etc/hostname\">\n]>", "<item>&foo;</item>",
         "line 3: an entity declaration (<!ENTITY foo …)"),
        ("<!DOCTYPE grammar [<!ENTITY % p \"\">]>", "<item>ace</item>", "an entity declaration (<!ENTITY p …)"),
    ])
    func entityDeclarationsAreRefusedNamingThem(doctype: String, item: String, expected: String) {
        let document = "<?xml version=\"1.0\"?>\n\(doctype)\n<grammar root=\"main\"><rule id=\"main\">\(item)</rule></grammar>"
        do {
            _ = try RecognitionGrammar(srgs: Array(document.utf8), origin: "x-grammar part")
            Issue.record("parsed \(document)")
        } catch let error as EarshotError {
            #expect(error.message.hasPrefix("x-grammar part: line "), "\(error.message)")
            #expect(error.message.contains(expected), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func predefinedEntitiesCharacterReferencesAndAnExternalDTDStillParse() throws {
        let grammar = try RecognitionGrammar(
            srgs: Array(
                """
                <?xml version="1.0"?>
                <!DOCTYPE grammar PUBLIC "-//W3C//DTD GRAMMAR 1.0//EN" "http://www.w3.org/TR/speech-grammar/grammar.dtd">
                <grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" root="main">
                <rule id="main"><one-of><item>ace &amp; king</item><item>&#65;</item><item>&#x4B;</item></one-of>
                <tag>out = "&lt;&gt;&quot;&apos;"</tag></rule>
                </grammar>
                """.utf8), origin: "test.grxml")
        #expect(Set(grammar.vocabulary) == ["ace", "&", "king", "a", "k"])
    }

    @Test func aLexiconsEntityIsRefusedToo() {
        let error = #expect(throws: EarshotError.self) {
            try PronunciationLexicon(
                pls: Array("<lexicon alphabet='ipa'>\n<lexeme><grapheme>&x;</grapheme><phoneme>a</phoneme></lexeme></lexicon>".utf8),
                origin: "x-dictionary part")
        }
        #expect(error?.message.hasPrefix("x-dictionary part: line 2: the entity reference &x;") == true, "\(error?.message ?? "")")
    }

    @Test func ipaBecomesCMUPhones() throws {
        let lexicon = try PronunciationLexicon(
            pls: Array(
                """
                <lexicon xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa">
                  <lexeme><grapheme>Earshot</grapheme><phoneme>ˈɪɹˌʃɑt</phoneme></lexeme>
                  <lexeme><grapheme>church</grapheme><grapheme>churches</grapheme><phoneme>t͡ʃɝtʃ</phoneme></lexeme>
                  <lexeme><grapheme>voice</grapheme><phoneme>vɔɪs</phoneme><phoneme alphabet="x-arpabet">V OY1 S</phoneme></lexeme>
                </lexicon>
                """.utf8))
        #expect(lexicon.entries.map(\.words) == [["earshot"], ["church", "churches"], ["voice"]])
        #expect(lexicon.entries[0].pronunciations == [.phones(["IH", "R", "SH", "AA", "T"])])
        #expect(lexicon.entries[1].pronunciations == [.phones(["CH", "ER", "CH"])])
        #expect(lexicon.entries[2].pronunciations == [.phones(["V", "OY", "S"]), .phones(["V", "OY", "S"])])
    }

    @Test(arguments: [
        ("<lexicon alphabet='ipa'><lexeme><grapheme>x</grapheme><phoneme>ʘ</phoneme></lexeme></lexicon>", "U+298"),
        ("<lexicon alphabet='x-sampa'><lexeme><grapheme>x</grapheme><phoneme>a</phoneme></lexeme></lexicon>",
         "alphabet \"x-sampa\" is not supported"),
        ("<lexicon alphabet='x-arpabet'><lexeme><grapheme>x</grapheme><phoneme>K QQ</phoneme></lexeme></lexicon>",
         "\"QQ\" is not a CMU phone"),
        ("<lexicon><lexeme><phoneme>a</phoneme></lexeme></lexicon>", "no <grapheme>"),
        ("<lexicon><lexeme><grapheme>x</grapheme></lexeme></lexicon>", "neither <phoneme> nor <alias>"),
        ("<lexicon><lexeme><grapheme>new york</grapheme><alias>a</alias></lexeme></lexicon>", "holds a space"),
        ("<grammar/>", "expected a PLS <lexicon>"),
    ])
    func invalidLexiconsAreRefused(document: String, expected: String) {
        do {
            _ = try PronunciationLexicon(pls: Array(document.utf8), origin: "x-dictionary part")
            Issue.record("parsed \(document)")
        } catch let error as EarshotError {
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.message.hasPrefix("x-dictionary part"))
        } catch {
            Issue.record("\(error)")
        }
    }
}
