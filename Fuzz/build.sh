#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/Targets/ into Fuzz/.build/ (see RELIABILITY.md).
#
# `swift build` cannot link a libFuzzer executable on Linux, so this compiles the library modules a
# target needs with swiftc itself, each instrumented (-sanitize=fuzzer,address) and with
# -enable-testing so the targets reach internal parsers through `@testable import`, exactly as the
# test targets do. Each target links its Fuzz/Targets/<name>.swift with the fuzz entry file it shares
# with a test target (Tests/*/…FuzzEntry.swift), so the fuzzer and `make test` run the same code.
#
# EarshotServer imports Hummingbird and swift-nio: those are taken as SwiftPM built them (run
# `swift build --target EarshotServer` first; `make fuzz` does), uninstrumented, with the module and
# C-header search paths SwiftPM used for EarshotServer (read from .build/debug.yaml). Only Earshot's
# own code is instrumented, which is where the parsers are.
#
# Needs the C libraries' -dev packages (`make deps`), python3, and nm and ar (binutils).
#
#   Fuzz/build.sh              every target
#   Fuzz/build.sh grammar wav  only these
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=Fuzz/.build
MODULES=$OUT/modules
mkdir -p "$MODULES"
SWIFTC=${SWIFTC:-swiftc}
FLAGS=(-sanitize=fuzzer,address -use-ld=lld -parse-as-library -swift-version 6 -O -g -enable-testing -package-name earshot
    -I "$MODULES")
for shim in Sources/C*/; do FLAGS+=(-I "$shim"); done
for cflag in $(pkg-config --cflags pocketsphinx opus); do FLAGS+=(-Xcc "$cflag"); done

SWIFTPM=.build/x86_64-unknown-linux-gnu/debug

# The module and C-header search flags SwiftPM gave EarshotServer for Hummingbird, swift-nio and
# their C shims, one per line (Earshot's own module maps are already in FLAGS).
server_dependency_flags() {
    local manifest=.build/debug.yaml
    [[ -f $manifest ]] || { echo "no $manifest: run 'swift build --target EarshotServer' first" >&2; exit 1; }
    /usr/bin/python3 - "$manifest" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index('  "C.EarshotServer-x86_64-unknown-linux-gnu-debug.module":')
args = json.loads(next(l for l in lines[start:] if l.startswith("    args: "))[len("    args: "):])
flags = []
for i, arg in enumerate(args):
    if arg == "-I" and args[i + 1].endswith("/debug/Modules"):
        flags += [arg, args[i + 1]]
    elif arg == "-Xcc" and (args[i + 1].startswith("-fmodule-map-file=") or args[i + 1] == "-I"):
        # Earshot's own C targets: their shims' folders, and the module maps SwiftPM generated for the
        # ones with an include/ folder (compile_c_target gives them instead).
        if ("/Sources/C" in args[i + 1] and "/checkouts/" not in args[i + 1]) or any(
                "/%s.build/" % name in args[i + 1] or "/%s/" % name in args[i + 1] for name in ("CWhisperKernels", "CFFmpeg")):
            continue
        flags += [arg, args[i + 1]]
        if args[i + 1] == "-I":
            flags += ["-Xcc", args[i + 3]]
print("\n".join(flags))
PY
}

# An archive of the objects SwiftPM built for the service's dependencies (not Earshot's own, nor
# tests, nor anything defining main): the linker takes from it only what EarshotServer uses.
server_dependency_archive() {
    local archive=$OUT/dependencies.a objects=()
    rm -f "$archive"
    while IFS= read -r -d '' object; do
        case $object in */Earshot* | */earshot.build/* | */CWhisperKernels.build/* | */CFFmpeg.build/* | *Tests.build/* | *-tool.build/* | *Benchmark*) continue ;; esac
        nm --defined-only "$object" 2>/dev/null | grep -qE ' T main$' && continue
        objects+=("$object")
    done < <(find "$SWIFTPM"/*.build -name '*.o' -print0)
    ar qcs "$archive" "${objects[@]}"
}

# Earshot's C targets with an include/ folder (Whisper's AVX-512 kernels; the FFmpeg loader EarshotIO
# calls): compiled with clang (instrumented like the rest) and given the module map SwiftPM would
# generate for the folder.
# compile_c_target NAME SOURCE.c
compile_c_target() {
    local name=$1 source=$2
    local object=$MODULES/$name.o
    mkdir -p "$MODULES/$name"
    printf 'module %s {\n    umbrella header "%s"\n    export *\n}\n' \
        "$name" "$PWD/Sources/$name/include/$name.h" >"$MODULES/$name/module.modulemap"
    if [[ ! -f $object || $source -nt $object || Sources/$name/include/$name.h -nt $object ]]; then
        echo "compiling $name"
        "${CLANG:-clang}" -fsanitize=fuzzer-no-link,address -O2 -g -I "Sources/$name/include" -c "$source" -o "$object"
    fi
}

# compile_module NAME [extra flags…]: Sources/NAME/**/*.swift → $MODULES/NAME.{swiftmodule,o}
compile_module() {
    local name=$1
    shift
    local sources
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
    local object=$MODULES/$name.o
    # Rebuild when a source is newer than the object, or a module compiled before it (one it may
    # import: modules are compiled in dependency order) was rebuilt.
    if ! $rebuilt && [[ -f $object ]] && [[ -z $(find "Sources/$name" -name '*.swift' -newer "$object") ]]; then
        return
    fi
    rebuilt=true
    echo "compiling $name (${#sources[@]} files)"
    "$SWIFTC" "${FLAGS[@]}" "$@" -module-name "$name" -wmo -c "${sources[@]}" -o "$object" \
        -emit-module -emit-module-path "$MODULES/$name.swiftmodule"
}

# link_target NAME MODULES ENTRY_FILES…: Fuzz/Targets/NAME.swift → $OUT/fuzz-NAME
link_target() {
    local name=$1 modules=$2
    shift 2
    local objects=()
    for module in $modules; do objects+=("$MODULES/$module.o"); done
    # EarshotWhisper calls the C kernels; EarshotIO the FFmpeg loader.
    if [[ " $modules " == *" EarshotWhisper "* ]]; then objects+=("$MODULES/CWhisperKernels.o"); fi
    if [[ " $modules " == *" EarshotIO "* ]]; then objects+=("$MODULES/CFFmpeg.o"); fi
    echo "linking fuzz-$name"
    "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_$name" "Fuzz/Targets/$name.swift" "$@" \
        "${objects[@]}" "$OUT/dependencies.a" -o "$OUT/fuzz-$name"
}

ALL=(grammar multipart xarg oauthform secrets token wav amr speex ogg whispermodel)
if [[ $# -gt 0 ]]; then TARGETS=("$@"); else TARGETS=("${ALL[@]}"); fi
rebuilt=false

needs_server=false
for target in "${TARGETS[@]}"; do
    case $target in multipart | xarg | oauthform | secrets | token) needs_server=true ;; esac
done

# SwiftPM's builds of the packages Earshot uses: every target needs them since EarshotIO imports
# swift-service-lifecycle's UnixSignals (Interrupts).
mapfile -t SERVER_FLAGS < <(server_dependency_flags)
server_dependency_archive
FLAGS+=("${SERVER_FLAGS[@]}")

compile_module EarshotCore
compile_module EarshotCodecs
compile_c_target CFFmpeg Sources/CFFmpeg/ffmpeg.c
FLAGS+=(-I "$MODULES/CFFmpeg")
compile_module EarshotIO
compile_module EarshotTesting
compile_module EarshotRecognizer
compile_c_target CWhisperKernels Sources/CWhisperKernels/WhisperKernelsAVX512.c
FLAGS+=(-I "$MODULES/CWhisperKernels")
# Whisper's reader (the whispermodel target), and the recognizer factory the service loads through.
compile_module EarshotWhisper
compile_module EarshotModels
if $needs_server; then
    compile_module EarshotDSP
    compile_module EarshotWire
    # The service's speech detector (InitialSilenceLimit) and its Text to Speech routes.
    compile_module EarshotVAD
    compile_module EarshotSynthesis
    compile_module EarshotServer
fi

CODECS="EarshotCore EarshotCodecs EarshotIO EarshotTesting"
for target in "${TARGETS[@]}"; do
    case $target in
        grammar)
            link_target grammar "EarshotCore EarshotIO EarshotCodecs EarshotTesting EarshotRecognizer" \
                Tests/EarshotRecognizerTests/GrammarFuzzEntry.swift ;;
        wav)
            link_target wav "$CODECS" Tests/EarshotCodecsTests/CodecFuzzEntry.swift \
                Tests/EarshotIOTests/WAVHeaderCheckFuzzEntry.swift ;;
        amr | speex | ogg)
            link_target "$target" "$CODECS" Tests/EarshotCodecsTests/CodecFuzzEntry.swift ;;
        multipart | xarg | oauthform | secrets | token)
            link_target "$target" \
                "$CODECS EarshotDSP EarshotRecognizer EarshotWhisper EarshotModels EarshotWire EarshotVAD EarshotSynthesis EarshotServer" \
                Tests/EarshotServerTests/ServerFuzzEntry.swift Tests/EarshotServerTests/SecretsFuzzEntry.swift ;;
        whispermodel)
            link_target whispermodel "EarshotCore EarshotRecognizer EarshotWhisper EarshotTesting" \
                Tests/EarshotWhisperTests/WhisperModelFuzzEntry.swift ;;
        *) echo "unknown target $target; expected one of ${ALL[*]}" >&2; exit 2 ;;
    esac
done
