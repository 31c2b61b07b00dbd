#!/bin/sh
# Turns a tree staged by `make install-files PREFIX=/usr DESTDIR=ROOT` into a Debian binary package,
# for `make deb-package`:
#
#   packaging/deb/build-deb.sh ROOT EARSHOT_BIN OUTPUT_DIR   → OUTPUT_DIR/earshot_<version>_<arch>.deb
#
# The version is `EARSHOT_BIN --version`'s, the architecture dpkg's. Depends lists the Debian packages
# that own the shared libraries the binary needs (its DT_NEEDED, found where `ldd` resolves them, owned
# per `dpkg -S`). The libraries no package owns — the Swift runtime and Foundation, from the toolchain
# in /opt/swift — are copied into /usr/lib/earshot/ (and what they need is looked at the same way),
# and patchelf points the staged binary's RUNPATH there ($ORIGIN/../lib/earshot, so an extracted
# package works where it lies too) and each copied library's at its own folder; then ldd must find
# every library in the package or in a Debian package's files. The binary is stripped of its debug
# information, manual pages are gzipped, and the zsh completion moves to Debian's vendor-completions
# folder, as Debian policy has it.
set -eu
umask 022
export LC_ALL=C
[ $# -eq 3 ] || { echo "usage: $0 ROOT EARSHOT_BIN OUTPUT_DIR" >&2; exit 2; }
root=$(cd "$1" && pwd -P) binary=$2 output=$3
here=$(cd "$(dirname "$0")" && pwd)
staged=$root/usr/bin/earshot
[ -x "$staged" ] || { echo "$0: no $staged: stage the tree with make install-files first" >&2; exit 1; }

version=$("$binary" --version)
case $version in
    [0-9]*) ;;
    *) echo "$0: $binary --version printed '$version', which is no Debian version" >&2; exit 1 ;;
esac
arch=$(dpkg --print-architecture)

# "soname path" for each library ldd resolves for $1, its libraries' own included (the dynamic loader
# by its file name); fails if one is not found.
libraries() {
    env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$1" | awk '
        $2 == "=>" && $3 == "not" { print "ldd: " $1 " not found" > "/dev/stderr"; failed = 1; next }
        $2 == "=>" && $3 ~ /^\// { print $1, $3; next }
        $1 ~ /^\// { count = split($1, parts, "/"); print parts[count], $1 }
        END { exit failed }'
}

# "path package" for each library path on standard input that a Debian package owns (as named, with
# its symbolic links resolved, or across merged /usr), with one `dpkg -S` for them all.
owners() {
    while read -r path; do
        real=$(readlink -f "$path")
        for candidate in "$path" "/usr$path" "${path#/usr}" "$real" "/usr$real" "${real#/usr}"; do
            echo "$path $candidate"
        done
    done >"$work/candidates"
    # dpkg -S answers "libc6:amd64: /lib/…" or "a:amd64, b:amd64: /…" for each file it knows.
    cut -d ' ' -f 2 "$work/candidates" | sort -u | xargs dpkg -S 2>/dev/null | grep -v '^diversion by' \
        >"$work/owned" || true
    awk 'NR == FNR { split($0, parts, ": /"); sub(/[:,].*/, "", parts[1]); owner["/" parts[2]] = parts[1]; next }
        ($2 in owner) && !($1 in seen) { seen[$1] = 1; print $1, owner[$2] }' "$work/owned" "$work/candidates"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libraries "$binary" >"$work/libraries"
cut -d ' ' -f 2 "$work/libraries" | owners >"$work/owners"
depends=""
bundled=""
queue=""
# What $1 needs itself (its DT_NEEDED, where ldd found each): a library a package owns is a dependency
# (what that library needs in turn is its package's business); one no package owns is copied into
# the package, and what it needs is looked at in turn.
needs() {
    for soname in $(patchelf --print-needed "$1"); do
        path=$(awk -v name="$soname" '$1 == name { print $2; exit }' "$work/libraries")
        [ -n "$path" ] || { echo "$0: ldd $binary did not resolve $soname, which $1 needs" >&2; exit 1; }
        package=$(awk -v path="$path" '$1 == path { print $2; exit }' "$work/owners")
        if [ -n "$package" ]; then
            depends="$depends $package"
        elif [ ! -e "$root/usr/lib/earshot/$soname" ]; then
            install -D -m 644 "$(readlink -f "$path")" "$root/usr/lib/earshot/$soname"
            bundled="$bundled $soname"
            queue="$queue $soname"
        fi
    done
}
needs "$binary"
# FFmpeg's libraries are loaded with dlopen when a file needs them (MP4/M4A, WebM, ADTS), so they are not
# in DT_NEEDED: the binary names them among its strings (libavformat.so.59 …), and they must be where ldconfig
# finds them and a package owns them.
for soname in $(strings -a "$binary" | grep -oE 'libav(util|codec|format)\.so\.[0-9]+' | sort -u); do
    path=$(/sbin/ldconfig -p | awk -v name="$soname" '$1 == name && $NF ~ /^\// { print $NF; exit }')
    [ -n "$path" ] || { echo "$0: $binary loads $soname, which ldconfig does not find" >&2; exit 1; }
    package=$(echo "$path" | owners | cut -d ' ' -f 2 | head -n 1)
    [ -n "$package" ] || { echo "$0: no Debian package owns $path, which $binary loads" >&2; exit 1; }
    depends="$depends $package"
done
while [ -n "${queue# }" ]; do
    set -- $queue
    queue=""
    for soname; do needs "$root/usr/lib/earshot/$soname"; done
done
depends=$(printf '%s\n' $depends | sort -u | paste -s -d, - | sed 's/,/, /g')
[ -n "$depends" ] || { echo "$0: $binary needs no library a Debian package owns" >&2; exit 1; }

# Debian ships binaries stripped: the debug information is most of a release build (123 MB → 47 MB);
# the symbol table stays, for backtraces.
strip --strip-debug "$staged"
if [ -n "$bundled" ]; then
    patchelf --set-rpath '$ORIGIN/../lib/earshot' "$staged"
    # (The toolchain's libraries already look in their own folder; one that does not is made to.)
    for soname in $bundled; do
        library=$root/usr/lib/earshot/$soname
        [ "$(patchelf --print-rpath "$library")" = '$ORIGIN' ] || patchelf --set-rpath '$ORIGIN' "$library"
    done
else
    patchelf --remove-rpath "$staged"
fi
# Every library the packaged binary loads is in the package or in a Debian package.
libraries "$staged" | cut -d ' ' -f 2 | grep -v "^$root/" >"$work/outside" || true
owners <"$work/outside" | cut -d ' ' -f 1 | sort >"$work/owned-outside"
if ! sort "$work/outside" | cmp -s - "$work/owned-outside"; then
    echo "$0: the packaged binary loads libraries no package holds:" >&2
    sort "$work/outside" | comm -23 - "$work/owned-outside" >&2
    exit 1
fi

man=$root/usr/share/man/man1
gzip -9 -n -f "$man"/*.1
zsh=$root/usr/share/zsh
if [ -f "$zsh/site-functions/_earshot" ]; then
    install -D -m 644 "$zsh/site-functions/_earshot" "$zsh/vendor-completions/_earshot"
    rm "$zsh/site-functions/_earshot"
    rmdir "$zsh/site-functions"
fi

rm -rf "$root/DEBIAN"
installed_size=$(du -sk "$root" | cut -f 1)
mkdir "$root/DEBIAN"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" "$here/control.in" >"$root/DEBIAN/control"
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$output"
# DEB_COMPRESSION: dpkg-deb's -Z (xz by default, as Debian's; the tests take gzip, four times faster).
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$root" "$output/earshot_${version}_${arch}.deb"
