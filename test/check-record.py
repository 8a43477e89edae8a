#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a hugepar record against the field table of doc/record.md.

check-record.py DOC RECORD       every field documented, of its type, none missing
check-record.py --get PATH FILE  the values at PATH (the table's notation: [] every
                                 element, [N] one), as JSON, on one line: integers
                                 exactly (jq 1.6 rounds those above 2^53)
"""
import json
import re
import sys

TYPES = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def load_table(doc):
    fields = {}
    for line in open(doc):
        m = re.match(r"^\| ([a-z_.\[\]]+) \| ([a-z ]+) \| (.*) \|$", line)
        if not m or m.group(1) == "field":
            continue
        kinds = [t.strip() for t in m.group(2).split(" or ")]
        fields[m.group(1)] = (kinds, m.group(3).startswith("always."))
    return fields


def walk(value, path, seen):
    seen.append((path, value))
    if isinstance(value, dict):
        for k, v in value.items():
            walk(v, f"{path}.{k}" if path else k, seen)
    elif isinstance(value, list):
        for v in value:
            walk(v, f"{path}[]", seen)


def get(path, record):
    values = [json.load(open(record))]
    for part in re.findall(r"[a-z_]+|\[[0-9]*\]", path):
        if part == "[]":
            values = [x for v in values for x in v]
        elif part.startswith("["):
            values = [v[int(part[1:-1])] for v in values]
        else:
            values = [v[part] for v in values]
    print(" ".join(json.dumps(v) for v in values))
    return 0


def main():
    if sys.argv[1] == "--get":
        return get(sys.argv[2], sys.argv[3])
    doc, record = sys.argv[1], sys.argv[2]
    fields = load_table(doc)
    rec = json.load(open(record))
    seen = []
    walk(rec, "", seen)
    errors = []
    present = set()
    for path, value in seen:
        if path == "" or (path.endswith("[]") and isinstance(value, dict)):
            continue
        present.add(path)
        if path not in fields:
            errors.append(f"{path}: not documented")
            continue
        kinds = fields[path][0]
        if not any(TYPES[k](value) for k in kinds):
            errors.append(f"{path}: {value!r} is not {' or '.join(kinds)}")
    full = rec.get("nodes") != []
    for path, (kinds, always) in fields.items():
        if path in present:
            continue
        if "[]" in path:
            # an element field is required when its array has elements
            arr = path[: path.rindex("[]")]
            if any(p == arr and isinstance(v, list) and v for p, v in seen):
                errors.append(f"{path}: missing")
        elif always or full:
            errors.append(f"{path}: missing")
    for e in errors:
        print(f"{record}: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
