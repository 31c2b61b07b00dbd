import EarshotLab
import EarshotTestTraits
import EarshotTesting
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
}
