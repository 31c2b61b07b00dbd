import CFFmpeg
import EarshotCore

/// FFmpeg's functions, from libavformat, libavcodec and libavutil loaded the first time a file needs
/// them (``CFFmpeg``'s `earshot_ffmpeg_load`): linked, they cost every command's start-up about 55 ms
/// of CPU, though only MP4/M4A, WebM and ADTS files use them.
enum FFmpegLibraries {
    private static let loaded: Result<earshot_ffmpeg, EarshotError> = {
        var reason = [CChar](repeating: 0, count: 512)
        if let table = earshot_ffmpeg_load(&reason, reason.count) { return .success(table.pointee) }
        let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .failure(
            EarshotError(
                .unsupportedFormat,
                "FFmpeg's libraries (\(String(cString: earshot_ffmpeg_sonames()))) cannot be loaded: \(why); "
                    + "install Debian's libavformat59, libavcodec59 and libavutil57"))
    }()

    /// The functions; loads the libraries on the first call. Throws, naming `name` (the file that
    /// needs them), when a library or one of its functions is missing.
    static func functions(for name: String) throws -> earshot_ffmpeg {
        do {
            return try loaded.get()
        } catch {
            throw EarshotError(error.code, "\(name): \(error.message)")
        }
    }
}
