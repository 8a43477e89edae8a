#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pre-pivot hook (sourced): wait for hugepar, so that the result is final before the
# root switch. `hugepar wait` waits no longer than hugepar's own deadline (it stops a
# run that outlives it and puts back what that run left raised); the boot goes on
# whatever it says.

if [ -x /usr/sbin/hugepar ] && ! /usr/sbin/hugepar wait; then
    warn "hugepar: the huge page pools are not as configured; see /run/hugepar/status.json"
fi
