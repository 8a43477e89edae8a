#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2154 # moddir, initdir, dracutsysrootdir... come from dracut
# dracut module hugepar: reserve huge pages per NUMA node, in parallel, before the
# root switch. Opt-in: dracut --add hugepar, or add_dracutmodules+=" hugepar ".

# The static binary: next to this file in a staged module tree, else installed.
hugepar_binary() {
    if [[ -x $moddir/hugepar ]]; then
        echo "$moddir/hugepar"
    else
        find_binary hugepar
    fi
}

# called by dracut
check() {
    [[ -n $(hugepar_binary) ]] || {
        dfatal "hugepar: the hugepar binary is missing (make install, or put it in $moddir)"
        return 1
    }
    return 255
}

# called by dracut
depends() {
    return 0
}

# called by dracut: the modules through which the firmware gives credentials (SMBIOS
# type 11 OEM strings, QEMU's fw_cfg), where the kernel has them as modules
installkernel() {
    hostonly='' instmods dmi_sysfs qemu_fw_cfg
}

# called by dracut
install() {
    local bin
    bin=$(hugepar_binary) || return 1
    inst_simple "$bin" /usr/sbin/hugepar

    if [[ -f $dracutsysrootdir/etc/hugepar.conf ]]; then
        inst_simple /etc/hugepar.conf
    else
        inst_simple "$moddir/hugepar.conf.default" /etc/hugepar.conf
    fi
    if [[ -d $dracutsysrootdir/etc/hugepar.conf.d ]]; then
        local f
        for f in "$dracutsysrootdir"/etc/hugepar.conf.d/*.conf; do
            [[ -f $f ]] && inst_simple "${f#"$dracutsysrootdir"}"
        done
    fi

    if dracut_module_included "systemd"; then
        inst_simple "$moddir/hugepar.service" "$systemdsystemunitdir/hugepar.service"
        $SYSTEMCTL -q --root "$initdir" enable hugepar.service
        # Ignition's first boot: its files in /sysroot, taken before the root switch
        if dracut_module_included "ignition"; then
            inst_simple "$moddir/hugepar-ignition.service" \
                "$systemdsystemunitdir/hugepar-ignition.service"
            mkdir -p "$initdir$systemdsystemunitdir/ignition-complete.target.wants"
            ln_r "$systemdsystemunitdir/hugepar-ignition.service" \
                "$systemdsystemunitdir/ignition-complete.target.wants/hugepar-ignition.service"
        fi
    else
        inst_hook pre-udev 05 "$moddir/hugepar-start.sh"
        inst_hook pre-pivot 05 "$moddir/hugepar-wait.sh"
    fi
}
