import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The module graph as `Package.swift` declares it (read by SwiftPM itself, `swift package
/// dump-package`), held to the README's list, to the imports in the sources, and to the layering
/// rules: offline modules never reach the HTTP client or the service.
@Suite(.waiting) struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each Earshot target (and the CLI) with the Earshot targets it depends on, in declaration order;
    /// `all` keeps the other dependencies too (C shims, packages' products).
    static func declaredGraph(all: Bool = false) throws -> [(name: String, dependencies: [String])] {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        // A scratch path of its own, so the running `swift test`'s build folder is not touched.
        let dump = try ExternalTool.run([
            "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ])
        try #require(dump.status == 0, "swift package dump-package: \(dump.standardError)")
        let package = try #require(try JSONSerialization.jsonObject(with: dump.standardOutput) as? [String: Any])
        let targets = try #require(package["targets"] as? [[String: Any]])
        return targets.compactMap { target in
            guard let name = target["name"] as? String, ["regular", "executable"].contains(target["type"] as? String),
                name.hasPrefix("Earshot") || name == "earshot"
            else { return nil }
            let dependencies = (target["dependencies"] as? [[String: [Any]]] ?? []).compactMap { dependency in
                dependency.values.first?.first as? String
            }
            return (name, all ? dependencies : dependencies.filter { $0.hasPrefix("Earshot") })
        }
    }

    /// The README's `Module: Dependency, …` lines, from the block after "Which module uses which".
    static func readmeGraph() throws -> [(name: String, dependencies: [String])] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "Which module uses which"), "README.md: no module graph")
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```text\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            let dependencies = parts.count > 1 ? parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
            return (String(parts[0]), dependencies.filter { $0 != "—" })
        }
    }

    @Test func theReadmeListsThePackagesGraph() throws {
        let declared = try Self.declaredGraph(), listed = try Self.readmeGraph()
        #expect(declared.count >= 15, "dump-package gave \(declared.count) Earshot targets")
        #expect(declared.map(\.name) == listed.map(\.name))
        for (module, dependencies) in declared {
            let line = listed.first { $0.name == module }
            #expect(Set(line?.dependencies ?? []) == Set(dependencies), "README's line for \(module)")
        }
    }

    /// Every target's folder and declared dependencies (all kinds, tests included), from SwiftPM.
    static func targets() throws -> [(name: String, kind: String, folder: String, dependencies: Set<String>)] {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let dump = try ExternalTool.run([
            "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ])
        try #require(dump.status == 0, "swift package dump-package: \(dump.standardError)")
        let package = try #require(try JSONSerialization.jsonObject(with: dump.standardOutput) as? [String: Any])
        return try #require(package["targets"] as? [[String: Any]]).compactMap { target in
            guard let name = target["name"] as? String, let kind = target["type"] as? String,
                ["regular", "executable", "test"].contains(kind)
            else { return nil }
            let folder = target["path"] as? String ?? (kind == "test" ? "Tests/" : "Sources/") + name
            let dependencies = (target["dependencies"] as? [[String: [Any]]] ?? []).compactMap { dependency in
                dependency.values.first?.first as? String
            }
            return (name, kind, folder, Set(dependencies))
        }
    }

    /// The modules the Swift files under `folder` import.
    static func imports(under folder: String) throws -> Set<String> {
        var imported = Set<String>()
        let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ ["public", "package", "internal", "@testable"].contains($0) })
                {
                    imported.insert(String(words[index + 1]))
                }
            }
        }
        return imported
    }

    /// What the toolchain provides: never declared.
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationXML", "Glibc", "Dispatch", "Synchronization", "Testing",
        "XCTest", "_Concurrency", "Darwin", "Musl",
    ]

    @Test func everyImportIsDeclaredAndEveryDependencyImported() throws {
        let targets = try Self.targets()
        #expect(targets.count >= 30, "dump-package gave \(targets.count) targets")
        for target in targets {
            let imported = try Self.imports(under: target.folder)
            guard !imported.isEmpty else {  // a C target (CWhisperKernels) imports nothing
                #expect(!target.name.hasPrefix("Earshot") || target.name.hasPrefix("C"), "\(target.folder): no imports")
                continue
            }
            // A module reached only through another's dependencies is declared too: it is used.
            let undeclared = imported.subtracting(target.dependencies).subtracting(Self.toolchainModules)
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them")
            // Test targets may declare what they only run (the earshot executable); modules may not.
            guard target.kind != "test" else { continue }
            for dependency in target.dependencies.subtracting(imported).sorted() {
                Issue.record("\(target.name) declares \(dependency) but no file imports it")
            }
        }
    }

    @Test func offlineModulesNeverReachTheHTTPClientOrTheService() throws {
        let graph = Dictionary(uniqueKeysWithValues: try Self.declaredGraph().map { ($0.name, $0.dependencies) })
        func reach(_ module: String) -> Set<String> {
            var seen = Set<String>(), stack = [module]
            while let next = stack.popLast() {
                for dependency in graph[next] ?? [] where seen.insert(dependency).inserted { stack.append(dependency) }
            }
            return seen
        }
        let offline = [
            "EarshotCore", "EarshotIO", "EarshotDSP", "EarshotCodecs", "EarshotVAD", "EarshotRecognizer",
            "EarshotWhisper", "EarshotModels", "EarshotTranscription", "EarshotLab", "EarshotSynthesis",
        ]
        for module in offline {
            let reached = reach(module)
            #expect(graph[module] != nil, "\(module) is not a target")
            #expect(!reached.contains("EarshotClient") && !reached.contains("EarshotServer"), "\(module) reaches \(reached.sorted())")
        }
    }
}
