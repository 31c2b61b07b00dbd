#include <stdarg.h>
#include <stdio.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/samplefmt.h>

/* FFmpeg's end-of-file code is a function-like macro (FFERRTAG), which Swift does not import. */
static inline int earshot_averror_eof(void) { return AVERROR_EOF; }

/* FFmpeg logs to stderr by default, and says why a file is unreadable only there ("moov atom not
   found"), while its return code says no more than "Invalid data found". The callback keeps the
   calling thread's last error-level message instead, for Earshot's own message naming the file, and
   prints nothing. A C function because the callback takes a va_list. */
static inline char *earshot_av_error_buffer(void) {
    static _Thread_local char buffer[256];
    return buffer;
}

static void earshot_av_log(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(earshot_av_error_buffer(), 256, format, arguments);
}

static inline void earshot_av_log_capture(void) { av_log_set_callback(earshot_av_log); }

/* The calling thread's last FFmpeg error message ("" if none since the last clear), trailing newline
   included as FFmpeg wrote it. */
static inline const char *earshot_av_last_log(void) { return earshot_av_error_buffer(); }
static inline void earshot_av_clear_log(void) { earshot_av_error_buffer()[0] = 0; }
