#include <opencore-amrnb/interf_enc.h>
#include <opencore-amrnb/interf_dec.h>
