import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@Suite(.computing) struct ModelSearchTests {
    @Test func foldersAreSearchedUserDataThenInstallationThenRepository() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let checkout = root.path + "/checkout"
        try FileManager.default.createDirectory(
            atPath: checkout + "/.earshot/models", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: checkout + "/sub/dir", withIntermediateDirectories: true)
        let places = ModelSearch.places(
            environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data"], executable: "/opt/earshot/bin/earshot",
            workingDirectory: checkout + "/sub/dir")
        #expect(
            places == [
                .init("/data/earshot/models", .userData), .init("/opt/earshot/share/earshot/models", .installation),
                .init(checkout + "/.earshot/models", .repository),
            ])
        // XDG_DATA_HOME unset or relative: ~/.local/share, as the XDG specification says.
        for environment in [["HOME": "/home/u"], ["HOME": "/home/u", "XDG_DATA_HOME": "rel"]] {
            #expect(ModelSearch.userDataFolder(environment: environment) == "/home/u/.local/share/earshot/models")
        }
        #expect(ModelSearch.userDataFolder(environment: [:]) == nil)

        // The first place holding the file wins.
        let first = root.path + "/first", second = root.path + "/second"
        for folder in [first, second] {
            try FileManager.default.createDirectory(atPath: folder + "/m", withIntermediateDirectories: true)
        }
        try Data("b".utf8).write(to: URL(fileURLWithPath: second + "/m/f"))
        let search = [ModelSearch.Place(first, .userData), .init(second, .installation)]
        #expect(ModelSearch.find("m/f", in: search)?.place.origin == .installation)
        try Data("a".utf8).write(to: URL(fileURLWithPath: first + "/m/f"))
        #expect(ModelSearch.find("m/f", in: search)?.path == first + "/m/f")
        #expect(ModelSearch.find("m/g", in: search) == nil)
    }

    /// The one rule: flag, then variable, then search; an empty value is not given; a given value is
    /// returned even when nothing is there (a typo fails when loading, never falls back).
    @Test func theFlagThenTheVariableThenTheSearch() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.path + "/m", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: root.path + "/m/f"))
        let places = [ModelSearch.Place(root.path, .repository)]
        func locate(_ given: String?, _ environment: [String: String]) -> (value: String, source: ModelSearch.Source)? {
            ModelSearch.locate(given: given, variable: "MODEL", environment: environment, relativePath: "m/f", in: places)
        }
        let flag = locate("/typo", ["MODEL": "/elsewhere"])
        #expect(flag?.value == "/typo" && flag?.source == .flag)
        let variable = locate("", ["MODEL": "/elsewhere"])
        #expect(variable?.value == "/elsewhere" && variable?.source == .variable("MODEL"))
        let searched = locate(nil, ["MODEL": ""])
        #expect(searched?.value == root.path + "/m/f" && searched?.source == .place(places[0]))
        #expect(ModelSearch.locate(given: nil, variable: "MODEL", environment: [:], relativePath: "m/g", in: places) == nil)
    }
}
