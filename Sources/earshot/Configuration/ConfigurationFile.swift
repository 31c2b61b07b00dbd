import Configuration
import EarshotCore
import Foundation
import Yams

/// One config file: YAML (JSON is YAML too), read with swift-configuration's `YAMLSnapshot`; its keys
/// are listed with Yams so that every key can be checked against the commands' options.
struct ConfigurationFile: Sendable {
    let path: String
    let snapshot: YAMLSnapshot
    /// Every value's dotted key (`transcribe.format`, `lm.build.vocabulary`), in file order.
    let keys: [String]
    /// Readable and writable by its owner only (mode 600 or stricter): the only kind that may hold secrets.
    let isPrivate: Bool

    /// Reads `path`; nil when it is absent and `required` is false. A file that cannot be read or
    /// parsed is an error naming it.
    static func read(_ path: String, required: Bool) throws -> ConfigurationFile? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            guard required || errno != ENOENT else { return nil }
            throw EarshotError(
                .invalidParameter, "\(path): cannot read the config file (\(String(cString: strerror(errno))))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidParameter, "\(path): cannot read the config file")
        }
        let text = String(decoding: data, as: UTF8.self)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw EarshotError(.invalidParameter, "\(path): not valid YAML or JSON: \(error)")
        }
        var keys: [String] = []
        if let root {
            guard case .mapping(let mapping) = root else {
                throw EarshotError(
                    .invalidParameter,
                    "\(path): expected a mapping of sections (transcribe:, vad:, serve:, …) at the top")
            }
            try collect(mapping, prefix: [], into: &keys, path: path)
        }
        let snapshot = try YAMLSnapshot(
            data: (keys.isEmpty ? Data("{}".utf8) : data).bytes, providerName: path, parsingOptions: .default)
        return ConfigurationFile(
            path: path, snapshot: snapshot, keys: keys, isPrivate: status.st_mode & 0o077 == 0)
    }

    /// The value at `key` (dotted), as `type`; nil when absent. A value of another shape is an error
    /// naming the file, the key and what was expected.
    func value(_ key: [String], as type: ConfigType, expected: String) throws -> ConfigContent? {
        do {
            return try snapshot.value(forKey: AbsoluteConfigKey(key), type: type).value?.content
        } catch {
            throw EarshotError(.invalidParameter, "\(path): \(key.joined(separator: ".")): expected \(expected)")
        }
    }

    private static func collect(_ mapping: Node.Mapping, prefix: [String], into keys: inout [String], path: String)
        throws
    {
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.string, !name.isEmpty, !name.contains(".") else {
                throw EarshotError(
                    .invalidParameter, "\(path): a key must be a plain name (line \(keyNode.mark?.line ?? 0))")
            }
            let key = prefix + [name]
            switch value {
            case .mapping(let inner): try collect(inner, prefix: key, into: &keys, path: path)
            case .scalar(let scalar) where scalar.string.isEmpty && scalar.style == .plain:
                throw EarshotError(
                    .invalidParameter, "\(path): \(key.joined(separator: ".")): expected a value, found none")
            default: keys.append(key.joined(separator: "."))
            }
        }
    }
}
