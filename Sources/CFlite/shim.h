#include <flite/flite.h>

// The US English voices Debian's flite1-dev ships; each library registers its voice once (the
// header of each voice is not installed, so the registration functions are declared here).
cst_voice *register_cmu_us_kal(const char *voxdir);
cst_voice *register_cmu_us_kal16(const char *voxdir);
cst_voice *register_cmu_us_slt(const char *voxdir);
cst_voice *register_cmu_us_awb(const char *voxdir);
cst_voice *register_cmu_us_rms(const char *voxdir);
