#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pre-udev hook (sourced): start hugepar in the background, so that the reservation
# runs while udev discovers devices. hugepar itself reads rd.hugepar (the off switch,
# every spelling) and the other rd.hugepar.* keys, and publishes its pid, deadline and
# exit status in /run/hugepar for the pre-pivot hook: no parsing here.

if [ -x /usr/sbin/hugepar ]; then
    # the firmware's credentials (SMBIOS type 11, fw_cfg), where these are modules
    modprobe -a -q dmi_sysfs qemu_fw_cfg 2>/dev/null
    [ -d /run/hugepar ] || mkdir -m 0755 /run/hugepar
    /usr/sbin/hugepar apply </dev/null >/run/hugepar/apply.log 2>&1 &
else
    warn "hugepar: /usr/sbin/hugepar is missing"
fi
