import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "earshot-test") throws {
        var template = Array((NSTemporaryDirectory() + "/\(label)-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    public func write(_ bytes: [UInt8], to name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// Writes `bytes` to `name`, readable and writable by its owner only (as `earshot serve` requires of
    /// its secrets files), and returns its path.
    @discardableResult
    public func writeSecret(_ bytes: [UInt8], to name: String) throws -> String {
        let created = FileManager.default.createFile(
            atPath: file(name), contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        guard created else { throw CocoaError(.fileWriteUnknown) }
        return file(name)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Names of the files in the directory, sorted (hidden files included).
    public func contents() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
