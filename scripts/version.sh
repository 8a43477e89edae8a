#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Print hugepar's version, as src/record/version.h has it: the one place it is written.
sed -n 's/^#define HUGEPAR_VERSION "\(.*\)"$/\1/p' "$(dirname "$0")/../src/record/version.h"
