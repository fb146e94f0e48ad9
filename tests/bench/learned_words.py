#!/usr/bin/env python3
"""The "Learned words" section of BENCHMARKS.md.

    learned_words.py BUILD_DIR [--out FILE] [--smoke]

Runs, on the built tree:
- search_learn.py: the learning protocol through a real mcpgwd (requests asked
  and their tools called through `mcpgw stdio`; recall on the test split
  before and after; a restart; search.learn off);
- search_bench --learn: the same protocol in process, its control (only the
  dev split taught: tools the test requests mostly do not ask for) and the
  dev-side table the weights were chosen on;
- search_bench --scale 1000: query CPU at 97,967 tools before and after as
  much is learned as the daemon keeps;
- scale_learned.py: daemon RSS at 1000 servers x 100 tools with 0, 500 and
  2,000 learned queries (the most the daemon keeps).
Prints the section, and writes it into FILE (default: BENCHMARKS.md),
replacing the section of that name or going before "## Targets". --smoke
runs each part small and writes nothing.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TITLE = "## Learned words: search that learns the user's requests"


def run(argv):
    print("learned_words: " + " ".join(argv), file=sys.stderr)
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(f"learned_words: {argv[0]} exited with {r.returncode}")
    return r.stdout


def table(text):
    """The Markdown table lines of `text`."""
    return "\n".join(l for l in text.splitlines() if l.startswith("|"))


def rows(text):
    """Table rows of `text` as lists of cells, the header and rule left out."""
    out = []
    for l in table(text).splitlines():
        cells = [c.strip() for c in l.strip("|").split("|")]
        if cells and not cells[0].startswith("-") and cells[0] not in ("requests", "learned queries"):
            out.append(cells)
    return out


def aims(daemon, learned_line, memory, flood):
    """What the section is held to, each with its measure."""
    by_kind = {r[0]: [float(x) for x in r[2:6]] for r in rows(daemon)}
    rss = {r[0].replace(",", ""): r for r in rows(memory)}
    cpu = float(re.search(r"query CPU median (\d+) µs", learned_line).group(1))
    out = ["", "| aim | measured | goal | |", "|---|---|---|---|"]

    def aim(name, measured, goal, ok):
        out.append(f"| {name} | {measured} | {goal} | {'met' if ok else 'missed'} |")

    a1, l1, a5, l5 = by_kind["all"]
    aim("recall@5, test requests never taught, after learning", f"{l5:.2f} (before {a5:.2f})", "≥ 0.90", l5 >= 0.90)
    aim("recall@1, the same", f"{l1:.2f} (before {a1:.2f})", "≥ 0.70", l1 >= 0.70)
    d1, dl1, d5, dl5 = by_kind["direct"]
    aim("direct requests, recall@1 / @5", f"{dl1:.2f} / {dl5:.2f} (before {d1:.2f} / {d5:.2f})", "no loss",
        dl1 >= d1 and dl5 >= d5)
    lost = int(re.search(r"and (\d+) lose their tool", flood).group(1))
    aim("a flood of 16 requests to an unrelated tool: test requests losing their tool from the first five",
        str(lost), "none", lost == 0)
    kept = int(re.search(r"keeps: (\d+) queries", learned_line).group(1))
    aim(f"query CPU at 97,967 tools with {kept:,} learned queries, median", f"{cpu:.0f} µs", "≤ 1000 µs",
        cpu <= 1000)
    for n in rss:
        if n.isdigit():
            after = float(rss[n][2].split()[0])
            aim(f"daemon RSS at 1000 servers × 100 tools after a query, {int(n):,} learned queries",
                f"{after:.1f} MB", "≤ 64 MB", after <= 64)
    return out


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(args[0])
    smoke = "--smoke" in args
    out = args[args.index("--out") + 1] if "--out" in args else os.path.join(ROOT, "BENCHMARKS.md")
    bench = os.path.join(build, "tests", "bench", "search_bench")
    data = os.path.join(HERE, "search")

    daemon = run([sys.executable, os.path.join(HERE, "search_learn.py"), build] + (["--smoke"] if smoke else []))
    learn = run([bench, data, "--learn"])
    control = run([bench, data, "--learn", "--no-uses"])
    tuning = run([bench, data, "--learn", "--split", "dev"])
    scale = run([bench, data, "--scale", "100" if smoke else "1000", "--repeat", "1" if smoke else "5"])
    memory = run([sys.executable, os.path.join(HERE, "scale_learned.py"), build] +
                 (["--servers", "100", "--runs", "1", "--queries", "0,500"] if smoke else ["--runs", "3"]))

    build_type = "?"
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for l in f:
            if l.startswith("CMAKE_BUILD_TYPE:"):
                build_type = l.split("=", 1)[1].strip()
    scale_row = next(l for l in scale.splitlines() if re.match(r"\| \d+ \| \d+ \|", l))
    cells = [c.strip() for c in scale_row.strip("|").split("|")]
    learned_line = next(l for l in scale.splitlines() if l.startswith("With as much learned"))

    lines = [
        TITLE,
        "",
        "Produced by `tests/bench/learned_words.py BUILD_DIR` (`tests/bench/run.sh --learned-words` "
        "builds the Release tree and runs it; these figures: a " + build_type + " tree). BEHAVIOR.md §10 says what a tool learns. The protocol: "
        "the evaluation set's test-split requests are asked before anything is learned; then each "
        "dev-split request and each request of `tests/bench/search/uses.json` (3 for each tool that "
        "answers a request of the set, written from the tool's listing alone, without sight of the "
        "test requests; 2 of the 3 paraphrases) is asked and the tool it names called, on one "
        "connection; then the test requests are asked again. No test request is ever taught: what "
        "lifts them is that the user asked for the same thing before in other words.",
        "",
        "### Through the daemon",
        "",
        "`tests/bench/search_learn.py` (also `bench:search_learn` under ctest): the 24 recorded "
        "listings served by `tests/bench/search/serve-listings.mjs`, a fresh mcpgwd, a host's "
        "`mcpgw stdio`.",
        "",
        daemon.strip(),
        "",
        "### In process, and the control",
        "",
        "`search_bench --learn` runs the same protocol on the index itself (the same numbers as "
        "through the daemon). Its control, `--no-uses`, teaches only the dev split: 81 requests "
        "whose tools are, but for a few, not the test requests' tools — what a tool's learned words "
        "cost the requests that are not for it.",
        "",
        "| taught | requests | n | recall@1 before | recall@1 learned | recall@5 before | recall@5 learned |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, text in (("dev split and uses.json", learn), ("dev split only (control)", control)):
        for row in table(text).splitlines()[2:]:
            lines.append(f"| {label} " + row)
    flood = next(l for l in learn.splitlines() if l.startswith("(a flood"))
    lines += [
        "",
        "A confused or hostile host: " + flood.strip("()") + ". A tool's learned words saturate "
        "(16 queries at most, each at most twice as strong as one use, and the word's share below "
        "what it gives in the tool's name), so a flood moves its tool up for the words it repeats, "
        "not above the tools those words name.",
    ]
    lines += [
        "",
        "The weights (a learned word counts at most 0.8 of the word, saturating with k = 1) were "
        "chosen on the dev side: uses.json taught, the dev split measured "
        "(`search_bench --learn --split dev`, and `--set learned=W --set learned_k=K` for others):",
        "",
        table(tuning),
        "",
        "### Cost",
        "",
        f"Query CPU at {cells[0]} tools ({cells[1]} servers, `search_bench --scale`, the evaluation "
        f"set's 164 requests through the Catalog): median {cells[2]}, p90 {cells[3]}, p99 {cells[4]} "
        f"with nothing learned. {learned_line.replace('With as much', 'With as much')}",
        "",
        "Daemon memory at 1000 servers × 100 tools (`tests/bench/scale_learned.py`: bench_upstream, "
        "a fresh daemon per measure, the queries taught through `mcpgw stdio`, then a restart so "
        "they are read back from the file; 3 rounds, the counts taken in turn; median (min–max)):",
        "",
        table(memory),
        "",
        "The daemon keeps at most 2,000 learned queries. It kept 5,000 until the first measure of this "
        "section: at 5,000 the daemon took 62.0 (61.1–62.1) MB when ready and 65.5 (64.7–65.6) MB "
        "after a query, over the 64 MB this scale is held to, for about 2.5 MiB of heap (the queries' "
        "text, and their words' postings) and the allocator's room around it. 2,000 distinct recent "
        "requests are 16 for each of 125 tools; a query unused for about four months goes anyway.",
        "",
    ]
    lines += aims(daemon, learned_line, memory, flood)
    section = "\n".join(lines).rstrip("\n") + "\n"
    print(section)
    if smoke:
        return 0
    text = open(out).read() if os.path.exists(out) else ""
    parts = text.splitlines(keepends=True)
    start = next((i for i, l in enumerate(parts) if l.rstrip("\n") == TITLE), None)
    if start is not None:
        end = next((j for j in range(start + 1, len(parts)) if parts[j].startswith("## ")), len(parts))
        new = parts[:start] + [section + ("\n" if end < len(parts) else "")] + parts[end:]
    else:
        at = next((i for i, l in enumerate(parts) if l.rstrip("\n") == "## Targets"), len(parts))
        new = parts[:at] + [section + "\n"] + parts[at:]
    with open(out, "w") as f:
        f.write("".join(new))
    print(f"learned_words: wrote the section to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
