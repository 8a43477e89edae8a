#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pre-pivot hook (sourced): wait for hugepar, bounded by its timeout, so the result is
# final before the root switch. Never stops the boot.

hugepar_wait() {
    [ -f /run/hugepar/pid ] || return 0
    read -r hp_pid </run/hugepar/pid
    # hugepar stops itself at rd.hugepar.timeout (default 60 s); allow 15 s more.
    hp_t=$(getarg rd.hugepar.timeout=)
    hp_t=${hp_t%%.*}
    case $hp_t in
        '' | *[!0-9]*) hp_t=60 ;;
    esac
    hp_limit=$(((hp_t + 15) * 10))
    while [ "$hp_limit" -gt 0 ] && kill -0 "$hp_pid" 2>/dev/null; do
        sleep 0.1
        hp_limit=$((hp_limit - 1))
    done
    if kill -0 "$hp_pid" 2>/dev/null; then
        warn "hugepar: still running after $((hp_t + 15)) s; stopping it and going on"
        kill -TERM "$hp_pid" 2>/dev/null
        return 0
    fi
    hp_rc=$(cat /run/hugepar/exit 2>/dev/null)
    while read -r hp_line; do
        case $hp_rc in
            0) info "$hp_line" ;;
            *) warn "$hp_line" ;;
        esac
    done </run/hugepar/apply.log
    case $hp_rc in
        0) ;;
        64) warn "hugepar: partial result, see /run/hugepar/status.json" ;;
        *) warn "hugepar: failed (exit ${hp_rc:-unknown}), see /run/hugepar/status.json" ;;
    esac
    rm -f /run/hugepar/pid
    return 0
}

hugepar_wait
