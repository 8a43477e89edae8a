#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the kernel's vmemmap optimization costs a run, on this machine (root, a
# writable /sys/kernel/mm/hugepages): VMEMMAP_PAGES (2048) 2M pages reserved from an
# empty pool three ways in each round, in turn: hugepar with the optimization kept
# off (vmemmap = keep), hugepar with it (the default turns it on), and the kernel's
# own write of /proc/sys/vm/nr_hugepages with it on. Each is timed with the
# monotonic clock (build/timeit). The figures: medians over VMEMMAP_RUNS paired
# rounds (default 7), and the ratios of each round with their range. The pools and
# the sysctl are put back as they were, pass or fail.
#   bench/vmemmap.sh
cd "$(dirname "$0")/.." || exit 1
RUNS=${VMEMMAP_RUNS:-7} N=${VMEMMAP_PAGES:-2048}
V=/proc/sys/vm/hugetlb_optimize_vmemmap
G=/proc/sys/vm/nr_hugepages
out=test/out/bench
mkdir -p $out
if [ "$(id -u)" != 0 ] || [ ! -w "$G" ] || [ ! -f "$V" ]; then
	echo "bench/vmemmap.sh: needs root, a writable $G and $V"
	exit 0
fi
saved_v=$(cat "$V") saved_g=$(cat "$G")
trap 'echo 0 >"$G"; echo "$saved_g" >"$G"; echo "$saved_v" >"$V"' EXIT INT TERM
conf=$out/vmemmap.conf
: >"$conf"
# one MODE: its milliseconds, from an empty pool
one() {
	echo 0 >"$G"
	case $1 in
	keep | auto)
		echo 0 >"$V"
		build/timeit "$1" exec ./hugepar apply --config "$conf" --record-dir "$out/vmemmap-rec" \
			--cmdline "rd.hugepar.pages=2M:$N rd.hugepar.vmemmap=$1 rd.hugepar.keep_free=1G" |
			awk '$1 == "BENCH" { print $3 }'
		;;
	kernel)
		echo 1 >"$V"
		build/timeit kernel write "$G" "$N" | awk '$1 == "BENCH" { print $3 }'
		;;
	esac
}
: >$out/vmemmap.tsv
for r in $(seq "$RUNS"); do
	for m in keep auto kernel; do
		printf '%s\t%s\t%s\n' "$r" "$m" "$(one "$m")" >>$out/vmemmap.tsv
	done
done
echo "### The vmemmap optimization: $N 2M pages, $(nproc) CPUs, $(ls -d /sys/devices/system/node/node[0-9]* | wc -l) node(s), Linux $(uname -r) ($RUNS rounds)"
echo
/usr/bin/python3 - "$out/vmemmap.tsv" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    r, m, ms = line.split("\t")
    t.setdefault(int(r), {})[m] = float(ms)
rounds = [v for v in t.values() if len(v) == 3]
med = lambda xs: statistics.median(xs)
print("| way | median | range |")
print("|---|---|---|")
for m, what in (("keep", "hugepar, the optimization kept off"), ("auto", "hugepar, the optimization on (default)"),
                ("kernel", "the kernel's own write, the optimization on")):
    xs = [v[m] for v in rounds]
    print(f"| {what} | {med(xs):.1f} ms | {min(xs):.1f}-{max(xs):.1f} |")
for a, b, what in (("auto", "keep", "hugepar with it / hugepar without it (goal: 1.15 or less)"),
                   ("auto", "kernel", "hugepar with it / the kernel's write with it")):
    rs = [v[a] / v[b] for v in rounds]
    print(f"| {what} | {med(rs):.2f}x | {min(rs):.2f}-{max(rs):.2f} |")
PY
