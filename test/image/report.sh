#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# In a booted test image (hugepar-report.service): write what the boot did, as files
# in a tar archive, onto the disk whose serial is hpreport; then power off.
r=/run/hugepar-report
mkdir -p "$r"
# The kdump image's first boot (/etc/hugepar-test/crash): once the capture kernel is
# loaded, crash; the capture kernel saves the dump (and what hugepar recorded there,
# test/image/kdump) and reboots, and the next boot reports. Not loaded: reported.
if [ -f /etc/hugepar-test/crash ] && [ ! -e /var/crash/hugepar-capture.json ]; then
	for _ in $(seq 600); do
		kdump-config status 2>&1 | grep -q 'ready to kdump' && break
		sleep 1
	done
	kdump-config status >"$r/kdump-status" 2>&1
	if grep -q 'ready to kdump' "$r/kdump-status"; then
		sync
		echo c >/proc/sysrq-trigger
	fi
fi
systemctl is-active multi-user.target >"$r/target" 2>&1
systemctl is-system-running >"$r/running" 2>&1
for u in hugepar-verify hugepar-consumer hugepar-initramfs; do
	systemctl show -p ActiveState -p Result -p ExecMainStatus -p ExecMainStartTimestampMonotonic \
		-p ExecMainExitTimestampMonotonic "$u.service" >"$r/$u.unit" 2>&1
done
cp /run/hugepar-consumer.saw "$r/consumer" 2>/dev/null
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*node} $(cat "$n/hugepages/hugepages-2048kB/nr_hugepages")"
done >"$r/pools"
echo "$(cat /proc/sys/vm/nr_overcommit_hugepages) $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages)" >"$r/global"
/usr/local/sbin/hugepar-capture >"$r/capture" 2>&1
cp /run/hugepar/status.json "$r/status.json" 2>/dev/null
# the next boot's plan, as the booted system gives it: the same settings files,
# credentials (SMBIOS, fw_cfg: their modules loaded) and command line
modprobe -a -q dmi_sysfs qemu_fw_cfg 2>/dev/null
hugepar plan --json >"$r/plan.json" 2>"$r/plan.err"
hugepar status >"$r/status.txt" 2>&1
echo $? >"$r/status.rc"
hugepar status --check >"$r/check.txt" 2>&1
echo $? >"$r/check.rc"
stat -c '%U %G %a' /dev/hugepages2M >"$r/mount.stat" 2>&1
findmnt -n -o FSTYPE,OPTIONS /dev/hugepages2M >"$r/mount.fs" 2>&1
cp /var/lib/prometheus/node-exporter/hugepar.prom "$r/hugepar.prom" 2>/dev/null
journalctl -b --no-pager -o short-monotonic >"$r/journal" 2>&1
journalctl -b --no-pager -p err -o cat >"$r/journal-err" 2>&1
cat /proc/cmdline >"$r/cmdline"
if [ -d /var/crash ]; then
	find /var/crash -type f | sort >"$r/crash"
	for f in /var/crash/hugepar-capture.*; do
		[ -f "$f" ] && cp "$f" "$r/"
	done
fi
uname -r >"$r/kernel"
tar -C "$r" -cf /dev/disk/by-id/virtio-hpreport .
sync
systemctl --no-block poweroff
