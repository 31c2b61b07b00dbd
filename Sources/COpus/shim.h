#include <opus.h>

/* opus_encoder_ctl is variadic, which Swift cannot call. These fixed-signature wrappers cover the
   integer requests Earshot makes (OPUS_SET_*_REQUEST with a value, OPUS_GET_*_REQUEST with a pointer). */
static inline int earshot_opus_encoder_set_int(OpusEncoder *encoder, int request, opus_int32 value) {
    return opus_encoder_ctl(encoder, request, value);
}

static inline int earshot_opus_encoder_get_int(OpusEncoder *encoder, int request, opus_int32 *value) {
    return opus_encoder_ctl(encoder, request, value);
}
