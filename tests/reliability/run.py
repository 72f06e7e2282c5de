#!/usr/bin/env python3
"""gree's reliability suite: mutated modules, MLIR and ONNX files, bad
Python calls and C ABI misuse, each processed by worker subprocesses
under supervision, plus a soak run and thread contention. A crash (a
signal, rc 134, a Go "fatal error") or a hang (no result within --timeout)
is attributed to its input, saved under --failures with the seed that
makes it, and the worker restarted after it; an error status is a clean
outcome. Exits 1 when anything crashed or hung (or a C misuse returned OK).

  python tests/reliability/run.py                  # the CI size (≤ 5 min on 2 cores)
  python tests/reliability/run.py --scale 10 --seed 7 --soak 100000
  python tests/reliability/run.py --only vmfb --seed 3 --count 5000

See docs/reliability.md."""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import seeds  # noqa: E402
import supervise  # noqa: E402

# Inputs per family at --scale 1 (the CI run).
COUNTS = {"vmfb": 500, "mlir": 300, "onnx": 200, "pycall": None, "cabi": None}
FAMILIES = ["vmfb", "mlir", "onnx", "pycall", "cabi", "soak", "soak-mobilenet", "threads"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=25, help="seed of every mutation (default 25)")
    p.add_argument("--scale", type=float, default=1.0, help="multiplies the mutated-input counts")
    p.add_argument("--count", type=int, help="inputs of each mutated family (overrides --scale)")
    p.add_argument("--only", action="append", choices=FAMILIES, help="run only these families")
    p.add_argument("--soak", type=int, default=10000, help="calls of the soak run (default 10,000)")
    p.add_argument("--soak-mobilenet", type=int, default=500,
                   help="calls of MobileNetV2 (exported with torch where a Python has it; default 500)")
    p.add_argument("--threads", type=int, default=4, help="threads of the contention run")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds one input may take (a hang)")
    p.add_argument("--failures", default=os.path.join(tempfile.gettempdir(), "gree-reliability-failures"),
                   help="where crashing and hanging inputs are saved")
    p.add_argument("--keep", action="store_true", help="keep the work directory (seeds, manifest)")
    return p.parse_args(argv)


def build_manifest(args, work, log):
    """Writes the seed files and the manifest the workers read."""
    import iree_go.compiler as ireec

    backends = [b for b in ("llvm-cpu", "vmvx") if b in ireec.query_available_targets()]
    man = {"seed": args.seed, "backends": backends, "soak": args.soak, "threads": args.threads,
           "soak_mobilenet": args.soak_mobilenet, "mobilenet": None, "vmfb": [], "mlir": [], "onnx": []}

    def put(family, name, data, **meta):
        path = os.path.join(work, family, f"{len(man[family]):03d}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        man[family].append(dict(path=path, name=name, **meta))

    want = set(args.only or FAMILIES)
    if want & {"mlir"}:
        for dialect, name, src in seeds.mlir_seeds():
            put("mlir", name, src, dialect=dialect)
    if want & {"vmfb"}:
        for backend, name, vmfb in seeds.vmfb_seeds(backends, log=log):
            put("vmfb", f"{backend}:{name}", vmfb, backend=backend)
    if want & {"onnx"}:
        for name, data in seeds.onnx_seeds():
            put("onnx", name, data)
    if "soak-mobilenet" in want:
        man["mobilenet"] = seeds.export_mobilenet(work, log)
    path = os.path.join(work, "manifest.json")
    with open(path, "w") as f:
        json.dump(man, f, indent=1)
    return man, path


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    t0 = time.time()
    log = lambda s: print(s, flush=True)  # noqa: E731
    work = tempfile.mkdtemp(prefix="gree-reliability-")
    os.makedirs(args.failures, exist_ok=True)
    log(f"gree reliability suite: seed {args.seed}, work dir {work}, failures to {args.failures}")
    man, man_path = build_manifest(args, work, log)
    log(f"seeds: {len(man['vmfb'])} modules ({', '.join(man['backends'])}), {len(man['mlir'])} MLIR functions, "
        f"{len(man['onnx'])} ONNX models ({time.time() - t0:.1f}s)")
    sup = supervise.Supervisor(man, man_path, args, work, log)
    rows = []
    for family in args.only or FAMILIES:
        if family in ("vmfb", "mlir", "onnx"):
            if not man[family]:
                rows.append(supervise.Row(family, skipped="no seeds (onnx not installed?)"))
                continue
            n = args.count or int(round(COUNTS[family] * args.scale))
            rows.append(sup.run_python(family, n))
        elif family == "pycall":
            import pycalls

            rows.append(sup.run_python("pycall", len(pycalls.CASES)))
        elif family == "cabi":
            rows.append(sup.run_cabi())
        elif family == "soak-mobilenet" and not man["mobilenet"]:
            rows.append(supervise.Row(family, skipped="no Python with torch and torchvision "
                                                      "(apt-get install python3-torchvision)"))
        else:
            rows.append(sup.run_python(family, 1))
    wall = time.time() - t0
    ok = supervise.print_table(rows, wall, log)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
