#!/usr/bin/env python3
"""Compares gree's iree-import-onnx with IREE's on the ONNX node-test models.

    compare_importer.py --gree PATH/iree-import-onnx --iree-python PATH/python [-k REGEX] [--no-data-prop]

--iree-python is a Python with IREE's compiler package (iree-base-compiler,
which ships iree.compiler.tools.import_onnx) and onnx installed; IREE's
importer runs there once for all models. Prints the tests whose text differs
and a summary: identical, different, gree-only errors, IREE-only errors,
both errors. Nothing here is run by CI (it needs IREE); the numbers are in
docs/conformance.md.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

IREE_SCRIPT = r'''
import os, sys
from iree.compiler.tools.import_onnx.__main__ import main, parse_arguments
root, out, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
for t in sys.stdin.read().split():
    dst = os.path.join(out, t + ".mlir")
    try:
        main(parse_arguments([os.path.join(root, t, "model.onnx"), "-o", dst] + extra))
    except BaseException as e:
        open(dst + ".err", "w").write(repr(e)[:2000])
'''


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gree", required=True, help="gree's iree-import-onnx binary")
    p.add_argument("--iree-python", required=True, help="a Python with iree-base-compiler and onnx")
    p.add_argument("--root", help="node test directory (default: the onnx package's)")
    p.add_argument("-k", help="only tests matching this regular expression")
    p.add_argument("--no-data-prop", action="store_true")
    args = p.parse_args(argv)
    root = args.root
    if root is None:
        import onnx

        root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
    if args.k:
        names = [n for n in names if re.search(args.k, n)]
    extra = ["--no-data-prop"] if args.no_data_prop else []
    with tempfile.TemporaryDirectory() as tmp:
        ref, got = os.path.join(tmp, "iree"), os.path.join(tmp, "gree")
        os.makedirs(ref)
        os.makedirs(got)
        subprocess.run([args.iree_python, "-c", IREE_SCRIPT, root, ref] + extra,
                       input="\n".join(names), text=True, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts = {"identical": 0, "different": 0, "gree error only": 0, "IREE error only": 0, "both error": 0}
        for n in names:
            r = subprocess.run([args.gree, os.path.join(root, n, "model.onnx"), "-o", os.path.join(got, n + ".mlir")] + extra,
                               capture_output=True, text=True)
            iree_ok = os.path.exists(os.path.join(ref, n + ".mlir"))
            if r.returncode != 0 and not iree_ok:
                counts["both error"] += 1
            elif r.returncode != 0:
                counts["gree error only"] += 1
                print(f"GREE ERROR  {n}: {r.stderr.strip()[:200]}")
            elif not iree_ok:
                counts["IREE error only"] += 1
            else:
                with open(os.path.join(ref, n + ".mlir"), "rb") as a, open(os.path.join(got, n + ".mlir"), "rb") as b:
                    if a.read() == b.read():
                        counts["identical"] += 1
                    else:
                        counts["different"] += 1
                        print(f"DIFFERENT   {n}")
    print(f"\n{len(names)} models: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0 if counts["different"] == 0 and counts["gree error only"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
