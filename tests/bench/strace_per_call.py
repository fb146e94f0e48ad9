"""System calls per call from two `strace -c -f` summaries of the same process
under the same load, one with N1 calls and one with N2: the difference divided
by N2 - N1 leaves start-up, warm-up and shutdown out. Prints one JSON line.

usage: strace_per_call.py PROCESS N1 SUMMARY1 N2 SUMMARY2
"""
import json
import sys


def counts(path):
    """{syscall: calls} from an strace -c summary table."""
    out = {}
    for line in open(path):
        fields = line.split()
        # % time, seconds, usecs/call, calls, [errors,] syscall
        if len(fields) < 5 or not fields[3].isdigit() or fields[-1] == "total":
            continue
        out[fields[-1]] = int(fields[3])
    return out


process, n1, path1, n2, path2 = sys.argv[1:6]
n1, n2 = int(n1), int(n2)
a, b = counts(path1), counts(path2)
per = {}
for name in set(a) | set(b):
    v = (b.get(name, 0) - a.get(name, 0)) / (n2 - n1)
    if abs(v) >= 0.005:
        per[name] = round(v, 2)
print(json.dumps({"process": process, "calls": n2 - n1,
                  "per_call": round(sum(per.values()), 2),
                  "by_syscall": dict(sorted(per.items(), key=lambda kv: -kv[1]))}))
