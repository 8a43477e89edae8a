#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write a `promtool test rules` file for one host (test/alerts.sh): hugepar's
Prometheus text (`hugepar status --format=prometheus`, read with the Prometheus
client's own parser, Debian's python3-prometheus-client) as input series, beside the
node_exporter gauges the rules read, and the alerts expected at one time.

  promtool-test.py RULES PROM BOOT EVAL OUT <EXPECTED

RULES the rules file; PROM hugepar's text ("" for a host without it); BOOT the
host's node_boot_time_seconds; EVAL when to look (`20m`); OUT the test file, JSON
(which promtool reads as YAML). Each series is scraped as instance="host1:9100",
job="node", every minute for an hour, with the same value. EXPECTED: for each alert
expected, a line "ALERTNAME LABEL=VALUE ..." (instance and job are added), then its
annotations, each on a line "NAME: TEXT", continued on lines that begin with a space
(joined with one space). Every alert of RULES not named is expected not to fire."""
import json
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

LABELS = {"instance": "host1:9100", "job": "node"}
STEPS = 60


def series(name, labels, value):
    ls = ",".join(f"{k}={json.dumps(v)}" for k, v in sorted({**labels, **LABELS}.items()))
    return {"series": f"{name}{{{ls}}}", "values": f"{value!r}+0x{STEPS}"}


def input_series(prom, boot):
    out = [series("node_boot_time_seconds", {}, float(boot)),
           series("node_textfile_scrape_error", {}, 0.0)]
    if prom:
        with open(prom) as f:
            for fam in text_string_to_metric_families(f.read()):
                out += [series(s.name, s.labels, s.value) for s in fam.samples]
    return out


def expected(lines):
    alerts, cur, note = {}, None, None
    for line in lines:
        if not line.strip():
            continue
        if line[0].isspace():
            cur["exp_annotations"][note] += " " + line.strip()
            continue
        first = line.split()[0]
        if first.endswith(":"):
            note = first[:-1]
            cur["exp_annotations"][note] = line[len(first):].strip()
            continue
        alert, *labels = line.split()
        cur = {"exp_labels": {**dict(kv.split("=", 1) for kv in labels), **LABELS},
               "exp_annotations": {}}
        alerts.setdefault(alert, []).append(cur)
    return alerts


def main():
    rules, prom, boot, at, out = sys.argv[1:6]
    with open(rules) as f:
        names = re.findall(r"^\s*- alert: (\S+)", f.read(), re.M)
    exp = expected(sys.stdin.read().splitlines())
    unknown = set(exp) - set(names)
    if unknown:
        raise SystemExit(f"not an alert of {rules}: {' '.join(sorted(unknown))}")
    test = {"rule_files": [rules], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": input_series(prom, boot),
                       "alert_rule_test": [{"eval_time": at, "alertname": n,
                                            "exp_alerts": exp.get(n, [])}
                                           for n in names]}]}
    with open(out, "w") as f:
        json.dump(test, f, indent=1)


if __name__ == "__main__":
    main()
