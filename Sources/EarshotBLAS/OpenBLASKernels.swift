import COpenBLAS

/// Which of OpenBLAS's kernels this process multiplies with, and which it should.
///
/// Debian 12's OpenBLAS (0.3.21) picks its kernels at load from the CPU's family and model. A CPU newer
/// than its table (Sapphire Rapids, as on the machine BENCHMARKS.md was measured on) falls back to
/// `Prescott`, its SSE3 kernels, though the CPU has AVX-512: every matrix product of Whisper and Silero
/// then runs about 2× slower. OpenBLAS reads `OPENBLAS_CORETYPE` only when it loads, before any of our
/// code, so a command that finds the wrong kernels starts itself again with the variable set
/// (``coreTypeToForce(environment:)``); a user's own `OPENBLAS_CORETYPE` is always left alone.
public enum OpenBLASKernels {
    /// Leaves OpenBLAS one thread and stops the worker threads it started at load, which spin for
    /// about 0.1 s before they sleep: as much CPU as a short command's whole start-up. Whisper and
    /// Silero run each product on the calling thread, and PocketSphinx's BLAS is this same library.
    public static func useOneThread() { earshot_openblas_single_thread() }

    /// The kernel set OpenBLAS chose at load (`openblas_get_corename`), e.g. `Haswell`.
    public static var loaded: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// The widest vector extension the CPU and the kernel allow: 0 none of AVX's, 1 AVX, 2 AVX2 with
    /// FMA, 3 AVX-512.
    public static var vectorLevel: Int {
        #if arch(x86_64)
            Int(earshot_x86_vector_level())
        #else
            0
        #endif
    }

    /// OpenBLAS's x86-64 kernel sets by the vector extension they use; a name not listed is left alone.
    static let levels: [String: Int] = [
        "prescott": 0, "core2": 0, "penryn": 0, "dunnington": 0, "nehalem": 0, "atom": 0, "barcelona": 0,
        "opteron": 0, "opteron_sse3": 0, "nano": 0,
        "sandybridge": 1, "bulldozer": 1, "piledriver": 1,
        "haswell": 2, "zen": 2, "steamroller": 2, "excavator": 2,
        "skylakex": 3, "cooperlake": 3, "sapphirerapids": 3,
    ]

    /// The `OPENBLAS_CORETYPE` to start again with, or nil to go on: nil when the variable is set, when
    /// the loaded kernels are not in ``levels``, or when they already use all the CPU has.
    public static func coreTypeToForce(
        environment: [String: String], loaded: String = loaded, vectorLevel: Int = vectorLevel
    ) -> String? {
        guard environment["OPENBLAS_CORETYPE"] == nil, let level = levels[loaded.lowercased()], level < vectorLevel
        else { return nil }
        switch vectorLevel {
        case 3: return "SkylakeX"
        case 2: return "Haswell"
        default: return "Sandybridge"
        }
    }
}
