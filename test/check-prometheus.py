#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check hugepar's Prometheus text output with the Prometheus client's own parser
(Debian's python3-prometheus-client) and print 'name{labels} value' lines, sorted,
for the tests to compare."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1]).read()
    out = []
    for fam in text_string_to_metric_families(text):
        if not fam.name.startswith("hugepar_"):
            raise SystemExit(f"{fam.name}: not hugepar_*")
        if fam.type != "gauge" or not fam.documentation:
            raise SystemExit(f"{fam.name}: not a documented gauge")
        for s in fam.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out.append(f"{s.name}{{{labels}}} {s.value:g}")
    print("\n".join(sorted(out)))


if __name__ == "__main__":
    main()
