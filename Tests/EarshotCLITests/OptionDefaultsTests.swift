import EarshotLab
import EarshotTestTraits
import EarshotTesting
import EarshotVAD
import Foundation
import Testing

/// Each default is declared once, by the library (issue 34): the CLI's options take theirs from it and
/// the help never states a second one. The serve and endpointing options are held to their libraries'
/// values in EarshotServerTests and EarshotVADTests.
@Suite(.waiting) struct OptionDefaultsTests {
    @Test func noOptionStatesADefaultInItsHelpAndAnotherInTheParser() throws {
        let dump = try OptionDump()
        #expect(dump.options.count > 200)
        let stated = try NSRegularExpression(pattern: #"Default:? -?[0-9]"#)
        for option in dump.options
        where stated.firstMatch(in: option.help, range: NSRange(option.help.startIndex..., in: option.help)) != nil {
            #expect(
                option.defaultValue == nil,
                "\(option.command) --\(option.name): its help and the parser both state a default")
        }
    }

    @Test func theLabsOptionsAreDeclaredOnceWithTheLibrarysDefault() throws {
        let dump = try OptionDump()
        for command in ["eval", "sweep"] {
            #expect(dump.numericDefault(command, "on-time-tolerance") == OracleTiming.defaultTolerance)
            #expect(dump.option(command, "on-time-tolerance")?.help == dump.option("eval", "on-time-tolerance")?.help)
            #expect(dump.option(command, "jobs")?.help == "Worker threads (default: the number of cores).")
        }
    }

    /// The smoothing and endpointing flags come from their one declaration (``TuningParameter``,
    /// issue 50): SDK name and kebab-case spelling, and its help, in every command that takes them.
    @Test func theTuningFlagsAreTheirDeclarations() throws {
        let dump = try OptionDump()
        for command in ["endpoint", "eval", "sweep"] {
            for parameter in TuningParameter.allCases {
                let option = dump.options.first { $0.command == command && $0.longNames.contains(parameter.rawValue) }
                #expect(option?.longNames.contains(parameter.kebabName) == true, "\(command) --\(parameter.rawValue)")
                #expect(option?.help.hasPrefix(parameter.help) == true, "\(command) --\(parameter.rawValue)")
            }
        }
    }

    /// The `parameters` a JSON document echoes are named as the options that set them (a repeatable
    /// option's list in the plural: `rules` for `--rule`), so a value read from a report names the
    /// option to give it back with.
    @Test func theJSONParametersEchoNamesTheOptions() throws {
        let dump = try OptionDump()
        let clip = "/usr/share/pocketsphinx/test/data/cards/004.wav"
        let result = try ExternalTool.run([
            ExternalTool.earshotPath, "endpoint", "--format", "json", "--detector", "energy", "--endingSilence", "0.3",
            clip,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let parameters = try #require(document["parameters"] as? [String: Any])
        #expect(parameters.count >= 10)
        let endpoint = dump.options.filter { $0.command == "endpoint" }
        let options = Set(endpoint.flatMap(\.longNames) + endpoint.filter(\.isRepeating).map { $0.name + "s" })
        for name in parameters.keys {
            #expect(options.contains(name), "endpoint's JSON echoes '\(name)', which no option of endpoint is called")
        }
        #expect(parameters["endingSilence"] as? Double == 0.3)
    }
}
