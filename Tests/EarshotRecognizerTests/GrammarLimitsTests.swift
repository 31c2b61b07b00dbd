import EarshotCore
import EarshotRecognizer
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Grammars and lexicons built to exhaust the stack or the memory are refused, quickly, naming the
/// limit they met; ordinary grammars are untouched by the limits.
@Suite(.computing) struct GrammarLimitsTests {
    static func refusal(_ make: () throws -> Any) -> String {
        do {
            _ = try make()
            return "accepted"
        } catch let error as EarshotError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [33, 10_000, 20_000])
    func deepNestingIsRefusedWithoutRecursion(depth: Int) {
        let message = Self.refusal { try RecognitionGrammar(srgs: HostileGrammars.nestedOneOf(depth: depth)) }
        #expect(message.contains("nested more than 32 deep"), "\(message)")
        #expect(message.contains("max-grammar-depth"))
    }

    @Test func nestingWithinTheLimitIsAccepted() throws {
        // The grammar and rule elements take two levels; 15 one-of/item pairs take 30 more.
        let grammar = try RecognitionGrammar(srgs: HostileGrammars.nestedOneOf(depth: 15))
        #expect(grammar.vocabulary == ["yes"])
    }

    @Test(arguments: [3, 6])
    func nestedRepeatsAreRefusedBeforeTheyGrow(levels: Int) {
        let grammar = HostileGrammars.nestedRepeats(levels: levels)
        if levels == 3 { #expect(grammar.count < 300) }
        let message = Self.refusal { try RecognitionGrammar(srgs: grammar) }
        #expect(message.contains("more than 10000 word arcs"), "\(message)")
        #expect(message.contains("max-grammar-arcs"))
    }

    @Test func aRepeatThatFitsIsAccepted() throws {
        // 2 levels of 0-50 around one|two: 50 × 50 × 2 = 5 000 arcs.
        let grammar = try RecognitionGrammar(srgs: HostileGrammars.nestedRepeats(levels: 2))
        #expect(grammar.vocabulary == ["one", "two"])
    }

    @Test func longReferenceChainsAndTooManyRulesAreRefused() {
        let chain = Self.refusal { try RecognitionGrammar(srgs: HostileGrammars.referenceChain(length: 200)) }
        #expect(chain.contains("rule references chain more than 32 deep (r0 → r1 → r2 → r3 → …)"), "\(chain)")
        #expect(chain.contains("max-grammar-reference-depth"))
        let many = Self.refusal { try RecognitionGrammar(srgs: HostileGrammars.manyRules(count: 300)) }
        #expect(many.contains("more than 256 rules"), "\(many)")
        #expect(many.contains("max-grammar-rules"))
    }

    @Test func referencedRulesCountOncePerReferenceAndRecursionOnce() throws {
        let text = """
            <grammar root="main"><rule id="main"><ruleref uri="#pair"/> <ruleref uri="#pair"/> again
            <ruleref uri="#main"/></rule><rule id="pair"><one-of><item>one</item><item>two</item></one-of></rule></grammar>
            """
        // pair (2 arcs) inlined twice, "again", and the recursive reference: 6.
        let limits = GrammarLimits(maxGrammarArcs: 6)
        _ = try RecognitionGrammar(srgs: Array(text.utf8), limits: limits)
        let message = Self.refusal {
            try RecognitionGrammar(srgs: Array(text.utf8), limits: GrammarLimits(maxGrammarArcs: 5))
        }
        #expect(message.contains("more than 5 word arcs"), "\(message)")
    }

    @Test func theCardsGrammarIsWellWithinTheDefaults() throws {
        let data = try CardsRecordings.grammar()
        _ = try RecognitionGrammar(srgs: data)
        // It still parses with limits a tenth of the defaults.
        _ = try RecognitionGrammar(
            srgs: data,
            limits: GrammarLimits(
                maxGrammarDepth: 8, maxGrammarRules: 4, maxGrammarRepeat: 5, maxGrammarReferenceDepth: 3,
                maxGrammarArcs: 2_000))
    }

    @Test func lexiconsAreBoundedInLexemesAndDepth() throws {
        _ = try PronunciationLexicon(pls: HostileGrammars.lexicon(lexemes: 1_000))
        let many = Self.refusal { try PronunciationLexicon(pls: HostileGrammars.lexicon(lexemes: 1_001)) }
        #expect(many.contains("holds 1001 lexemes; this service's limit is 1000 (max-lexemes)"), "\(many)")
        let deep = Self.refusal { try PronunciationLexicon(pls: HostileGrammars.lexicon(lexemes: 1, depth: 20_000)) }
        #expect(deep.contains("nested more than 32 deep"), "\(deep)")
    }
}

/// Documents that are not UTF-8, or hold processing instructions, are refused before Foundation's XML
/// parser, which traps on them.
@Suite(.computing) struct MarkupEncodingTests {
    @Test(
        arguments: [
            ([0x3C, 0xFF, 0x61, 0x2F, 0x3E], "not valid UTF-8"),
            (Array("<!--".utf8) + [0xFF] + Array("--><a/>".utf8), "not valid UTF-8"),
            (Array("<?".utf8) + [0xFF] + Array("?><a/>".utf8), "not valid UTF-8"),
            (Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>".utf8), "declares encoding=\"UTF-16\""),
            (Array("<?xml version='1.0' encoding='ISO-8859-1'?><grammar/>".utf8), "declares encoding=\"ISO-8859-1\""),
            (Array("<?x?>".utf8), "a processing instruction"),
            (Array("<?xml version=\"1.0\"?>\n<grammar><?x?></grammar>".utf8), "line 2: a processing instruction"),
        ] as [([UInt8], String)])
    func nonUTF8DocumentsAreRefused(document: [UInt8], expected: String) {
        for parse in [
            { _ = try RecognitionGrammar(srgs: document, origin: "g") },
            { _ = try PronunciationLexicon(pls: document, origin: "g") },
        ] as [() throws -> Void] {
            let message = GrammarLimitsTests.refusal { try parse() }
            #expect(message.contains(expected), "\(message)")
        }
    }

    @Test func utf8DeclarationsAreAccepted() throws {
        _ = try RecognitionGrammar(
            srgs: Array("<?xml version=\"1.0\" encoding=\"utf-8\"?><grammar><rule id='a'>yes</rule></grammar>".utf8))
        _ = try RecognitionGrammar(srgs: Array("<grammar><rule id='a'>café</rule></grammar>".utf8))
    }
}
