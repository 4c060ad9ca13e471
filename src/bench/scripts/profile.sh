#!/usr/bin/env bash
# Where the compiled simulator's cycle loop spends its instructions, for one preset and engine:
# samples `src/bench/scripts/runPreset.ts` with Linux perf (package linux-perf; not installed by
# `make setup`), finds the hottest loop of the generated function and counts its x86
# instructions by kind, separating loads from and stores to stack slots (spills).
#
# Usage: src/bench/scripts/profile.sh PRESET [wasm|js] [CYCLES]
set -euo pipefail
preset=${1:?usage: src/bench/scripts/profile.sh PRESET [wasm|js] [CYCLES]}
engine=${2:-wasm}
cycles=${3:-2000000}
command -v perf >/dev/null || { echo "profile.sh: perf not found (install the Debian package linux-perf)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# perf's JIT support reads the jitdump files from the directory node runs in.
cd "$work"
perf record -q -k 1 -e cpu-clock -F 4000 -o perf.data \
  node --perf-prof --no-write-protect-code-memory --import "$root/node_modules/tsx/dist/esm/index.mjs" \
  "$root/src/bench/scripts/runPreset.ts" "$preset" "$engine" "$cycles"
perf inject --jit -i perf.data -o jit.data >/dev/null 2>&1
# The generated function: `run` (JavaScript) or the wasm function (named after its index).
sym=$(perf report -i jit.data --stdio --sort sym 2>/dev/null | grep -v '^#' | grep -E 'JS:\*run |wasm-function\[' | head -1 | sed 's/.*\] //')
echo "hottest generated function: $sym"
perf annotate -i jit.data --stdio -s "$sym" 2>/dev/null | grep -E '^\s+[0-9.]+ :\s+[0-9a-f]+:' > ins.txt || true
python3 - ins.txt <<'PY'
import collections, re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r'\s+([0-9.]+) :\s+([0-9a-f]+):\s+(\S+)\s*(.*)', line)
    if m:
        rows.append((float(m[1]), int(m[2], 16), m[3], m[4]))
# The loop: the shortest span of a backward jump that holds (nearly) as many samples as the
# best such span (a jump back to the function's start also spans the prologue).
spans = []
for _, a, op, arg in rows:
    t = re.match(r'([0-9a-f]+)', arg) if op.startswith('j') else None
    if t and int(t[1], 16) < a:
        lo = int(t[1], 16)
        spans.append((sum(r[0] for r in rows if lo <= r[1] <= a), lo, a))
if not spans:
    sys.exit('profile.sh: no loop found in the annotated function')
top = max(x[0] for x in spans)
best = min((x for x in spans if x[0] >= 0.97 * top), key=lambda x: x[2] - x[1])
s, lo, hi = best
loop = [r for r in rows if lo <= r[1] <= hi]
print(f'loop: {len(loop)} instructions, {s:.1f} % of the samples')
kinds, pct = collections.Counter(), collections.Counter()
for p, _, op, arg in loop:
    k = op
    if '(%rbp)' in arg:
        k += ' from stack' if '(%rbp)' in arg.split(',')[0] else ' to stack'
    kinds[k] += 1
    pct[k] += p
for k, n in kinds.most_common(12):
    print(f'  {k:18} {n:6} instructions {pct[k]:6.2f} % of samples')
PY
