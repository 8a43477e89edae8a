#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Draw doc/threads.png from the thread sweeps of bench/run.sh and bench/qemu.sh:
# speed-up over one worker against the worker count, and where auto landed.
cd "$(dirname "$0")/.." || exit 1
d=test/out/bench
prep() { # FILE -> "threads speedup" lines and an "auto" line
	awk '!/^#/ && $1!="auto" {if (!b) b=$2; print $1, b/$2} $1=="auto" {print "auto", b/$2}' "$1"
}
for f in vm qemu; do
	[ -s $d/threads-$f.dat ] || { echo "plot: no $d/threads-$f.dat (run make bench)"; exit 1; }
	prep $d/threads-$f.dat | grep -v '^auto' >$d/sweep-$f.txt
	# auto: plotted at the worker count it chose, which the sweep's times bracket
	prep $d/threads-$f.dat | awk '$1=="auto" {print $2}' >$d/auto-$f.txt
done
gnuplot <<GP
set terminal pngcairo size 800,480 font "sans,11"
set output "doc/threads.png"
set title "Reserving 2M pages: speed-up over one worker"
set xlabel "workers (threads)"
set ylabel "speed-up over 1 worker"
set key bottom right
set grid
set xrange [0.5:4.5]
set xtics 1
set yrange [0:*]
auto_vm = $(cat $d/auto-vm.txt)
auto_qemu = $(cat $d/auto-qemu.txt)
plot "$d/sweep-vm.txt" using 1:2 with linespoints lw 2 title "VM, 2 vCPUs, 8 GiB, no zeroing", \
     "$d/sweep-qemu.txt" using 1:2 with linespoints lw 2 title "QEMU, 2 vCPUs, init\\\\_on\\\\_alloc=1", \
     auto_vm with lines dt 2 lc 1 title "auto (VM)", \
     auto_qemu with lines dt 2 lc 2 title "auto (QEMU)"
GP
echo "plot: doc/threads.png"
