#!/usr/bin/env python3
"""Prints the body of go/compiler/onnx/opset.go's opChanges table from the
installed onnx package's operator schemas: for every default-domain op, the
opset versions after 7 that introduced a new version of the op."""

import collections

import onnx.defs as defs


def main():
    versions = collections.defaultdict(set)
    names = set()
    for s in defs.get_all_schemas_with_history():
        if s.domain != "":
            continue
        names.add(s.name)
        if s.since_version > 7:
            versions[s.name].add(s.since_version)
    items = [f'"{n}": {{' + ", ".join(map(str, sorted(versions.get(n, ())))) + "}" for n in sorted(names)]
    line, out = "\t", []
    for it in items:
        if len(line) + len(it) + 2 > 110:
            out.append(line.rstrip())
            line = "\t"
        line += it + ", "
    out.append(line.rstrip())
    print("\n".join(out))


if __name__ == "__main__":
    main()
