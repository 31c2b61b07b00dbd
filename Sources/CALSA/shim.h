#include <alsa/asoundlib.h>

/* alsa-lib prints its own errors ("Unknown PCM …") to stderr; Earshot reports them itself, naming
   the device, so the library's copy is dropped. A C function because the handler is variadic. */
static void earshot_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void earshot_alsa_silence_errors(void) { snd_lib_error_set_handler(earshot_alsa_quiet); }
