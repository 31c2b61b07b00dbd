import EarshotCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OutputFile {
    /// Refuses, before anything is read or written, an output that is one of the inputs: the same file
    /// by name, through a symbolic link, or through a hard link (the same device and inode), and an
    /// input given as `-` whose standard input is that file (`earshot … -o in.wav - < in.wav`).
    /// Written atomically, such an output would replace the recording with the command's result once
    /// it was done.
    ///
    /// Outputs that do not exist yet, standard output, the process's own descriptors and anything
    /// that is not a regular file (a device, FIFO or socket, which is written into, never replaced) are
    /// left alone. `option` names the output in the error (`-o`, `--output-dir`).
    public static func refuseReplacing(inputs: [String], outputs: [String], option: String) throws {
        let inputFiles = inputs.compactMap { input in identity(ofInput: input).map { (input, $0) } }
        guard !inputFiles.isEmpty else { return }
        for output in outputs where output != InputPath.standardStream && processDescriptor(output) == nil {
            var info = stat()
            guard stat(output, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if let (input, _) = inputFiles.first(where: { $0.1 == FileIdentity(info) }) {
                let named = input == InputPath.standardStream ? "standard input" : "the input \(input)"
                throw EarshotError(
                    .invalidParameter,
                    "\(output): \(option) names \(named); writing there would replace the recording. "
                        + "Give another output path")
            }
        }
    }

    /// The regular file an input path (or `-`, standard input) is, if it is one.
    private static func identity(ofInput input: String) -> FileIdentity? {
        var info = stat()
        let found =
            input == InputPath.standardStream ? fstat(STDIN_FILENO, &info) == 0 : stat(input, &info) == 0
        guard found, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileIdentity(info)
    }
}

/// What makes two paths the same file: its device and inode.
private struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
