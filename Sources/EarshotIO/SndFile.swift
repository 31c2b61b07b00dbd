import CSndFile
import EarshotCore
import Foundation

/// Small helpers around libsndfile shared by the file source and writer.
enum SndFile {
    /// libsndfile's description of the last error on `handle` (or of the last failed open, for `nil`).
    static func lastError(_ handle: OpaquePointer?) -> String {
        guard let message = sf_strerror(handle) else { return "unknown libsndfile error" }
        return String(cString: message)
    }

    /// libsndfile's own name for the container or encoding part of a format code.
    static func formatName(_ code: Int32) -> String {
        var info = SF_FORMAT_INFO()
        info.format = code
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let name = info.name
        else { return String(format: "0x%04x", code) }
        return String(cString: name)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
