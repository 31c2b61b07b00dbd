// PocketSphinx alone, with and without its flat-lexicon second pass: decodes each WAV given (16 kHz
// mono, 16-bit, 44-byte header) as one utterance with one decoder that carries its cepstral mean from
// file to file, and prints per file: path, seconds spent in ps_process_raw, seconds in ps_end_utt, and
// the hypothesis, tab-separated. Usage: flat_pass yes|no FILE.wav...
// Built and driven by flat_pass.py, which reports WER and end-of-utterance time for both settings.
#include <pocketsphinx.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: flat_pass yes|no FILE.wav...\n");
        return 2;
    }
    const char *model = "/usr/share/pocketsphinx/model/en-us";
    char hmm[512], lm[512], dict[512];
    snprintf(hmm, sizeof hmm, "%s/en-us", model);
    snprintf(lm, sizeof lm, "%s/en-us.lm.bin", model);
    snprintf(dict, sizeof dict, "%s/cmudict-en-us.dict", model);
    cmd_ln_t *config = cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict,
        "-remove_silence", "no", "-fwdflat", argv[1], "-logfn", "/dev/null", NULL);
    ps_decoder_t *decoder = config ? ps_init(config) : NULL;
    if (!decoder) {
        fprintf(stderr, "flat_pass: cannot load the PocketSphinx model in %s\n", model);
        return 3;
    }
    for (int k = 2; k < argc; k++) {
        FILE *file = fopen(argv[k], "rb");
        if (!file || fseek(file, 44, SEEK_SET) != 0) {
            fprintf(stderr, "flat_pass: %s: cannot read\n", argv[k]);
            return 2;
        }
        int16 samples[1600];
        size_t count;
        double start = now();
        ps_start_utt(decoder);
        while ((count = fread(samples, 2, 1600, file)) > 0) ps_process_raw(decoder, samples, count, FALSE, FALSE);
        double decoded = now();
        ps_end_utt(decoder);
        double ended = now();
        int32 score;
        const char *hypothesis = ps_get_hyp(decoder, &score);
        printf("%s\t%.3f\t%.3f\t%s\n", argv[k], decoded - start, ended - decoded, hypothesis ? hypothesis : "");
        fclose(file);
    }
    ps_free(decoder);
    cmd_ln_free_r(config);
    return 0;
}
