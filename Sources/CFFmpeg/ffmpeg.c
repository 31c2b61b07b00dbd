#include "CFFmpeg.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define EARSHOT_TEXT(x) #x
#define EARSHOT_SONAME(library, major) "lib" #library ".so." EARSHOT_TEXT(major)

static const char *const avutil_soname = EARSHOT_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR);
static const char *const avcodec_soname = EARSHOT_SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR);
static const char *const avformat_soname = EARSHOT_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR);

const char *earshot_ffmpeg_sonames(void) {
    return EARSHOT_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR) " " EARSHOT_SONAME(
        avcodec, LIBAVCODEC_VERSION_MAJOR) " " EARSHOT_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR);
}

static _Thread_local char last_log[256];

const char *earshot_av_last_log(void) { return last_log; }
void earshot_av_clear_log(void) { last_log[0] = 0; }

/* Keeps the calling thread's last error-level message and prints nothing. In C because the callback
   takes a va_list. */
static void earshot_av_log(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(last_log, sizeof last_log, format, arguments);
}

static struct earshot_ffmpeg table;

const struct earshot_ffmpeg *earshot_ffmpeg_load(char *reason, size_t size) {
    /* avutil before avcodec before avformat: each needs the one before. */
    void *avutil = dlopen(avutil_soname, RTLD_NOW | RTLD_LOCAL);
    void *avcodec = avutil ? dlopen(avcodec_soname, RTLD_NOW | RTLD_LOCAL) : NULL;
    void *avformat = avcodec ? dlopen(avformat_soname, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!avformat) {
        snprintf(reason, size, "%s", dlerror());
        return NULL;
    }
#define EARSHOT_FFMPEG_LOOKUP(library, name)                                                                 \
    *(void **)&table.name = dlsym(library, #name);                                                           \
    if (!table.name) {                                                                                       \
        snprintf(reason, size, "%s has no function %s", library##_soname, #name);                            \
        return NULL;                                                                                         \
    }
    EARSHOT_FFMPEG_FUNCTIONS(EARSHOT_FFMPEG_LOOKUP)
#undef EARSHOT_FFMPEG_LOOKUP
    __typeof__(av_log_set_callback) *set_log = (__typeof__(av_log_set_callback) *)dlsym(avutil, "av_log_set_callback");
    if (!set_log) {
        snprintf(reason, size, "%s has no function av_log_set_callback", avutil_soname);
        return NULL;
    }
    set_log(earshot_av_log);
    return &table;
}
