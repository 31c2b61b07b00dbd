import EarshotTestTraits
import Foundation
import Testing

/// Every suite says which threads it runs on (`.computing`, `.waiting` or `.timed`, EarshotTestTraits):
/// one left on Swift's cooperative pool would hold it while it computes, and the waiting suites'
/// `Task.sleep`s, which resume through the pool, would wake late again in `make test`'s single pass.
@Suite(.computing) struct SuiteThreadsTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The top-level types of `source` that hold tests, each with the attribute lines above it.
    static func suites(in source: String) -> [(name: String, attributes: String)] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [(name: String, attributes: String)] = []
        var index = 0
        while index < lines.count {
            guard let match = lines[index].firstMatch(of: /^(?:@Suite.*\s)?(?:final class|struct|enum) (\w+)/) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < lines.count, !lines[end].hasPrefix("}") { end += 1 }
            if lines[index..<end].contains(where: { $0.contains("@Test") }) {
                var first = index
                while first > 0, lines[first - 1].hasPrefix("@") { first -= 1 }
                found.append((String(match.1), lines[first...index].joined(separator: "\n")))
            }
            index = end + 1
        }
        return found
    }

    @Test func everySuiteNamesItsThreads() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.tests.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var suites = 0
        for file in files {
            let source = try String(contentsOf: Self.tests.appendingPathComponent(file), encoding: .utf8)
            for suite in Self.suites(in: source) {
                suites += 1
                #expect(
                    [".computing", ".waiting", ".timed"].contains { suite.attributes.contains($0) },
                    "\(file): suite \(suite.name) has no .computing, .waiting or .timed trait")
            }
        }
        // Every test target's suites were read, not none.
        #expect(suites > 100)
    }

    @Test func aSuiteWithoutATraitIsFound() {
        let source = """
            @Suite(.serialized) struct Paced {
                @Test func one() {}
            }
            struct Plain {
                @Test func two() {}
            }
            @Suite(.waiting)
            struct Named {
                @Test func three() {}
            }
            struct Helper {
                static let value = 1
            }
            """
        let suites = Self.suites(in: source)
        #expect(suites.map(\.name) == ["Paced", "Plain", "Named"])
        #expect(suites.map { $0.attributes.contains(".waiting") } == [false, false, true])
    }
}
