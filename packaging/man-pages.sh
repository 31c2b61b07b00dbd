#!/bin/sh
# Writes earshot's manual pages, one per command and subcommand, from the binary's own help
# (swift-argument-parser's generate-manual, which runs `EARSHOT_BIN --experimental-dump-help`), for
# `make install-files`.
#
#   packaging/man-pages.sh GENERATE_MANUAL EARSHOT_BIN OUTPUT_DIR [DATE]
#
# generate-manual names a subcommand's page after its path with dots (earshot.corpus.build.1); they
# are renamed, titles and cross-references included, with hyphens as git's are (earshot-corpus-build.1),
# so man-db's `man earshot transcribe` finds earshot-transcribe(1). DATE (yyyy-mm-dd; the Makefile
# passes the last commit's) is the pages' date, so the same sources give the same pages.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 GENERATE_MANUAL EARSHOT_BIN OUTPUT_DIR [DATE]" >&2; exit 2; }
tool=$1 binary=$2 output=$3 date=${4:-}

pages=$(mktemp -d)
trap 'rm -rf "$pages"' EXIT
"$tool" "$binary" --multi-page ${date:+--date "$date"} --output-directory "$pages"

for page in "$pages"/earshot*.1; do
    [ -f "$page" ] || { echo "$0: generate-manual wrote no earshot*.1 page" >&2; exit 1; }
    name=$(basename "$page" .1 | tr . -)
    # `.Dt EARSHOT.CORPUS.BUILD 1` and `.Xr earshot.corpus.build 1`: every dot of the title is a hyphen.
    # The help's blank lines between paragraphs become mdoc's paragraph macro (groff warns of blank lines).
    sed -E -e 's/^$/.Pp/' -e ':dot' -e 's/^(\.Dt EARSHOT[^ .]*)\./\1-/; s/^(\.Xr earshot[^ .]*)\./\1-/; t dot' "$page" \
        >"$pages/$name.page"
    install -m 644 "$pages/$name.page" "$output/$name.1"
done
