import EarshotBLAS
import EarshotTestTraits
import Testing

/// The kernels a command starts again with: only when OpenBLAS chose a set older than the CPU, and
/// never over a user's own OPENBLAS_CORETYPE.
@Suite(.computing) struct OpenBLASKernelsTests {
    @Test func olderKernelsThanTheCPUAreReplacedByTheWidestItRuns() {
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "Prescott", vectorLevel: 3) == "SkylakeX")
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "Nehalem", vectorLevel: 2) == "Haswell")
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "Sandybridge", vectorLevel: 3) == "SkylakeX")
    }

    @Test func matchingOrUnknownKernelsAndAUsersChoiceAreLeftAlone() {
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "Haswell", vectorLevel: 2) == nil)
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "Cooperlake", vectorLevel: 3) == nil)
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "Prescott", vectorLevel: 0) == nil)
        #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: "SomeFutureCore", vectorLevel: 3) == nil)
        #expect(
            OpenBLASKernels.coreTypeToForce(
                environment: ["OPENBLAS_CORETYPE": "Prescott"], loaded: "Prescott", vectorLevel: 3) == nil)
    }

    /// On this machine, a command runs the kernels its CPU can: what `earshot` starts again with is what a
    /// process started with it would load.
    @Test func theseKernelsNeedNoRestartOnceForced() {
        if let forced = OpenBLASKernels.coreTypeToForce(environment: [:]) {
            #expect(OpenBLASKernels.coreTypeToForce(environment: [:], loaded: forced) == nil, "\(forced)")
        }
    }
}
