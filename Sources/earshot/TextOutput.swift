import EarshotCore
import EarshotIO
import Foundation

/// Where a command writes its data: standard output, or a file that appears only when complete
/// (see ``AtomicFile``): if the command fails first, nothing is left under the final name.
final class TextOutput {
    private let name: String
    private let handle: FileHandle
    private let file: AtomicFile?

    init(path: String) throws {
        if path == InputPath.standardStream {
            name = "stdout"
            handle = FileHandle.standardOutput
            file = nil
        } else {
            let file = try AtomicFile(path: path)
            name = path
            handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false)
            self.file = file
        }
    }

    func write(_ text: String) throws {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw EarshotError(.writeFailed, "\(name): write failed (\(error.localizedDescription))")
        }
    }

    /// Makes the output visible under its final name.
    func commit() throws { try file?.commit() }
}
