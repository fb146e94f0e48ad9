#!/usr/bin/env bash
# The .deb: `cpack -G DEB` on the build (package written to a temp dir), then
# `dpkg-deb -c` must list the binaries, the library and its headers, the
# systemd units, the launchd plist, the man pages, the pkg-config and CMake
# files, and the docs; the extracted unit must name /usr/bin/mcpgwd; the
# extracted binaries must run (--version); the package must depend on the
# shared libraries the binaries use; nothing in it carries a library search
# path (the .deb installs into /usr).
# Usage: tests/service/package.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
NeedTools cpack dpkg-deb dpkg-shlibdeps file readelf man

if ! cpack -G DEB -B "$TMP/pkg" --config "$BUILD/CPackConfig.cmake" >"$TMP/cpack.log" 2>&1; then
  echo "$SCRIPT_NAME: cpack failed:" >&2
  cat "$TMP/cpack.log" >&2
  exit 1
fi
DEB="$(ls "$TMP"/pkg/*.deb 2>/dev/null | head -n 1)"
Check "cpack -G DEB made a .deb" test -n "$DEB"
[ -n "$DEB" ] || Finish
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$TMP/contents"
LIBDIR="$(LibDir)"
for path in \
  /usr/bin/mcpgwd /usr/bin/mcpgw /usr/libexec/mcpgw/mcpgw-setup \
  "/usr/$LIBDIR/libmcpgw.so" "/usr/$LIBDIR/libmcpgw.so.0" \
  /usr/include/mcpgw.h /usr/include/mcpgw.hpp \
  /usr/lib/systemd/user/mcpgwd.service /usr/lib/systemd/user/mcpgwd.socket \
  /usr/share/mcpgw/com.mcpgw.mcpgwd.plist \
  /usr/share/man/man1/mcpgwd.1 /usr/share/man/man1/mcpgw.1 \
  "/usr/$LIBDIR/pkgconfig/mcpgw.pc" \
  "/usr/$LIBDIR/cmake/mcpgw/mcpgwConfig.cmake" "/usr/$LIBDIR/cmake/mcpgw/mcpgwTargets.cmake" \
  /usr/share/doc/mcpgw/README.md /usr/share/doc/mcpgw/docs/SERVICE.md \
  /usr/share/doc/mcpgw/docs/CONFIG.md /usr/share/doc/mcpgw/proto/PROTOCOL.md; do
  Check "the .deb holds $path" grep -qx -- "$path" "$TMP/contents"
done
Check "the .deb holds no path of the build machine" bash -c "! grep -q -e '$BUILD' -e '$TMP' '$TMP/contents'"

dpkg-deb -I "$DEB" >"$TMP/info"
Check "the package is named mcpgw" grep -q '^ Package: mcpgw$' "$TMP/info"
Check "the package depends on libcurl (shlibdeps)" grep -q '^ Depends:.*libcurl' "$TMP/info"
Check "the package depends on libuv (shlibdeps)" grep -q '^ Depends:.*libuv1' "$TMP/info"
Check "the package depends on toml++ (shlibdeps)" grep -q '^ Depends:.*libtomlplusplus3' "$TMP/info"
Check "the package depends on ncurses for mcpgw top (shlibdeps)" grep -q '^ Depends:.*libncursesw6' "$TMP/info"

X="$TMP/x"
dpkg-deb -x "$DEB" "$X"
Check "the packaged unit starts /usr/bin/mcpgwd" grep -qx 'ExecStart=/usr/bin/mcpgwd' \
  "$X/usr/lib/systemd/user/mcpgwd.service"
Check "the packaged unit names no build path" bash -c "! grep -q -e '$BUILD' -e '$TMP' '$X/usr/lib/systemd/user/mcpgwd.service'"
# Every relative link in the installed documents leads to an installed file.
DOC="$X/usr/share/doc/mcpgw"
broken=""
while IFS= read -r md; do
  dir="$(dirname "$md")"
  while IFS= read -r target; do
    target="${target%%#*}"
    [ -z "$target" ] && continue
    [ -e "$dir/$target" ] || broken+=" ${md#"$DOC"/}->$target"
  done < <(grep -oE '\]\([^)]+\)' "$md" | sed -E 's/^\]\((.*)\)$/\1/' | grep -vE '^[a-z]+:')
done < <(find "$DOC" -name '*.md')
Check "every relative link in the installed documents resolves${broken:+ (broken:$broken)}" \
  test -z "$broken"

# Installed into /usr, the binaries need no library search path (lintian's
# binary-or-shlib-defines-rpath): none is set.
for bin in "$X/usr/bin/mcpgw" "$X/usr/bin/mcpgwd" "$X/usr/libexec/mcpgw/mcpgw-setup" \
  "$X/usr/$LIBDIR/libmcpgw.so.0"; do
  Check "the packaged $(basename "$bin") has no RPATH or RUNPATH" \
    bash -c "! readelf -d '$bin' | grep -q -e RPATH -e RUNPATH"
done
version="$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
out="$(LD_LIBRARY_PATH="$X/usr/$LIBDIR" "$X/usr/bin/mcpgwd" --version 2>&1 || true)"
Check "the packaged mcpgwd runs: '$out'" test "$out" = "mcpgwd $version"
out="$(LD_LIBRARY_PATH="$X/usr/$LIBDIR" "$X/usr/bin/mcpgw" --version 2>&1 || true)"
Check "the packaged mcpgw runs with the packaged library: '$out'" grep -q "$version" <<<"$out"
mkdir -p "$TMP/pkghome"
out="$(HOME="$TMP/pkghome" LD_LIBRARY_PATH="$X/usr/$LIBDIR" "$X/usr/bin/mcpgw" hosts 2>&1 || true)"
Check "the packaged mcpgw runs hosts through the packaged mcpgw-setup" grep -q claude-code <<<"$out"
Check "the packaged man page renders" bash -c "MANWIDTH=80 man -l '$X/usr/share/man/man1/mcpgwd.1' 2>/dev/null | grep -q SIGHUP"

Finish
