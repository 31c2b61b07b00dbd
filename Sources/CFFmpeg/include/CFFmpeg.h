#ifndef EARSHOT_CFFMPEG_H
#define EARSHOT_CFFMPEG_H

/* FFmpeg's libavformat, libavcodec and libavutil, loaded when a file first needs them rather than
   when earshot starts: linked, they and the hundred libraries they need (codecs, X11, cairo, …) cost
   every command about 55 ms of CPU at start-up, though only MP4/M4A, WebM and ADTS files use them.
   The types and constants come from the headers; the functions from `earshot_ffmpeg_load`'s table. */

#include <stdarg.h>
#include <stddef.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/samplefmt.h>

/* Every FFmpeg function earshot calls, with the library it lives in. */
#define EARSHOT_FFMPEG_FUNCTIONS(X)                                                                          \
    X(avutil, av_dict_get)                                                                                 \
    X(avutil, av_frame_alloc)                                                                              \
    X(avutil, av_frame_free)                                                                               \
    X(avutil, av_frame_unref)                                                                              \
    X(avutil, av_freep)                                                                                    \
    X(avutil, av_get_packed_sample_fmt)                                                                    \
    X(avutil, av_get_sample_fmt_name)                                                                      \
    X(avutil, av_malloc)                                                                                   \
    X(avutil, av_sample_fmt_is_planar)                                                                     \
    X(avutil, av_strerror)                                                                                 \
    X(avcodec, av_packet_alloc)                                                                            \
    X(avcodec, av_packet_free)                                                                             \
    X(avcodec, av_packet_unref)                                                                            \
    X(avcodec, avcodec_alloc_context3)                                                                     \
    X(avcodec, avcodec_free_context)                                                                       \
    X(avcodec, avcodec_get_name)                                                                           \
    X(avcodec, avcodec_open2)                                                                              \
    X(avcodec, avcodec_parameters_to_context)                                                              \
    X(avcodec, avcodec_receive_frame)                                                                      \
    X(avcodec, avcodec_send_packet)                                                                        \
    X(avformat, av_find_best_stream)                                                                       \
    X(avformat, av_find_input_format)                                                                      \
    X(avformat, av_read_frame)                                                                             \
    X(avformat, avformat_alloc_context)                                                                    \
    X(avformat, avformat_close_input)                                                                      \
    X(avformat, avformat_find_stream_info)                                                                 \
    X(avformat, avformat_open_input)                                                                       \
    X(avformat, avio_alloc_context)                                                                        \
    X(avformat, avio_context_free)

/* The functions, each with the type its header declares. */
struct earshot_ffmpeg {
#define EARSHOT_FFMPEG_FIELD(library, name) __typeof__(name) *_Nonnull name;
    EARSHOT_FFMPEG_FUNCTIONS(EARSHOT_FFMPEG_FIELD)
#undef EARSHOT_FFMPEG_FIELD
};

/* Loads the three libraries by the sonames of the headers built against (libavformat.so.59 for
   FFmpeg 5.1), looks up every function, and routes FFmpeg's log to `earshot_av_last_log`. Returns the
   table, or NULL with `reason` (size bytes) saying which library or function is missing. Call it once
   (Swift's `static let` does); the table lives as long as the process. */
const struct earshot_ffmpeg *_Nullable earshot_ffmpeg_load(char *_Nonnull reason, size_t size);

/* The sonames loaded, space-separated ("libavutil.so.57 libavcodec.so.59 libavformat.so.59"). */
const char *_Nonnull earshot_ffmpeg_sonames(void);

/* FFmpeg's end-of-file code is a function-like macro (FFERRTAG), which Swift does not import. */
static inline int earshot_averror_eof(void) { return AVERROR_EOF; }

/* The calling thread's last error-level message from FFmpeg ("" if none since the last clear),
   trailing newline included as FFmpeg wrote it. FFmpeg logs to stderr by default and says why a file
   is unreadable only there ("moov atom not found"), while its return code says no more than "Invalid
   data found"; the loaded library logs here instead, for earshot's own message naming the file. */
const char *_Nonnull earshot_av_last_log(void);
void earshot_av_clear_log(void);

#endif
