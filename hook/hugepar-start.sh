#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pre-udev hook (sourced): start hugepar in the background, so the reservation runs
# while udev discovers devices. hugepar reads the rd.hugepar.* keys itself.

if ! getargbool 1 rd.hugepar; then
    info "hugepar: disabled by rd.hugepar=0"
elif [ ! -x /usr/sbin/hugepar ]; then
    warn "hugepar: /usr/sbin/hugepar is missing"
else
    mkdir -p /run/hugepar
    (
        /usr/sbin/hugepar apply >/run/hugepar/apply.log 2>&1
        echo $? >/run/hugepar/exit
    ) &
    echo $! >/run/hugepar/pid
    info "hugepar: reserving huge pages in the background"
fi
