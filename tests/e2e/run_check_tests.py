#!/usr/bin/env python3
"""Runs a directory of check-test .mlir files through gree.

For every file: iree-compile it for a backend (vmvx by default), then run
iree-check-module on each requested device, and print one line per file and
device with PASS / FAIL / COMPILE-FAIL / SKIP and the reason, then a total.
Files with neither check ops nor RUN lines are compile-only tests (PASS
when they compile). Lit-style files whose RUN line is `iree-run-mlir ... %s <runtime flags> |
FileCheck %s` are run with gree's iree-run-mlir and their CHECK lines matched
in order (a small FileCheck: CHECK, CHECK-LABEL, CHECK-NEXT and CHECK-SAME
as ordered substring/{{regex}} matches); other lit files are SKIPped.

    tests/e2e/run_check_tests.py DIR [DIR...] [--devices local-sync,local-task]
        [--backend vmvx] [--flag=--iree-compile-flag ...] [--bin DIR]
        [--verbose] [--timeout S]

It works on any directory of IREE-style check tests, e.g. a checkout of
IREE's tests/e2e/linalg. Exit status: 0 when nothing failed.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile


def find_bin(name, bin_dir):
    if bin_dir:
        p = pathlib.Path(bin_dir) / name
        if p.exists():
            return str(p)
    p = shutil.which(name)
    if p:
        return p
    sys.exit(f"cannot find {name}; build the tools (make build) and pass --bin DIR")


def extra_flags(text):
    """Compiler flags from `// RUN:` lines we can honor (input type)."""
    flags = []
    for line in text.splitlines():
        if "iree-input-type=" in line:
            v = line.split("iree-input-type=")[1].split()[0]
            flags.append(f"--iree-input-type={v}")
            break
    return flags


def run_lines(text):
    """The RUN commands of a lit file, continuation lines joined."""
    cmds, cur = [], ""
    for line in text.splitlines():
        m = re.match(r"\s*//\s*RUN:(.*)", line)
        if not m:
            continue
        part = m.group(1).strip()
        if part.endswith("\\"):
            cur += part[:-1] + " "
            continue
        cmds.append(cur + part)
        cur = ""
    return cmds


def check_pattern(p):
    """A FileCheck pattern as a regex: {{re}} literal elsewhere."""
    out, pos = "", 0
    for m in re.finditer(r"\{\{(.*?)\}\}", p):
        out += re.escape(p[pos:m.start()]) + m.group(1)
        pos = m.end()
    return out + re.escape(p[pos:])


def filecheck(text, output):
    """Ordered matching of CHECK lines; returns None or the failing line."""
    pos = 0
    for line in text.splitlines():
        m = re.match(r"\s*//\s*CHECK(-LABEL|-NEXT|-SAME)?:\s?(.*)", line)
        if not m:
            continue
        rx = re.compile(check_pattern(m.group(2).strip()))
        found = rx.search(output, pos)
        if not found:
            return m.group(0).strip()
        pos = found.end()
    return None


def unquote(arg):
    """Removes shell quoting: --input="1" → --input=1."""
    return arg.replace('"', "").replace("'", "")


def run_lit(path, text, args, run_mlir_bin):
    if not run_lines(text):
        # No RUN line and no checks: a compile-only regression test.
        r = subprocess.run([find_bin("iree-compile", args.bin), f"--iree-hal-target-backends={args.backend}", *args.flags, str(path), "-o", os.devnull],
                           capture_output=True, text=True, timeout=args.timeout)
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["(no message)"])[0]
            return [(d, "COMPILE-FAIL", first) for d in args.devices]
        return [(d, "PASS", "compile-only") for d in args.devices]
    # IREE's make-single-dispatch preprocessing only regroups dispatches
    # (results are unchanged): run the program as iree-run-mlir would.
    lines = []
    for c in run_lines(text):
        parts = [p.strip() for p in c.split("|")]
        if parts[0].startswith("iree-opt") and "make-single-dispatch" in parts[0] and len(parts) > 1 and parts[1].startswith("iree-run-mlir"):
            run = parts[1][:-2] + " %s" if parts[1].endswith(" -") else parts[1]
            c = " | ".join([run] + parts[2:] + ["FileCheck"])
        lines.append(c)
    cmds = [c for c in lines if c.startswith("iree-run-mlir") and "FileCheck" in c]
    if not cmds:
        return [(d, "SKIP", "lit test whose RUN line is not iree-run-mlir | FileCheck") for d in args.devices]
    cmd = next((c for c in cmds if "backends=vmvx" in c), cmds[0])
    run = cmd.split("|")[0].split()[1:]
    run = [a.replace("llvm-cpu", args.backend) for a in run if a not in ("2>&1", "2>/dev/null")]
    out = []
    for d in args.devices:
        argv = [run_mlir_bin] + args.flags + [str(path) if a == "%s" else unquote(a) for a in run] + [f"--device={d}"]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            out.append((d, "FAIL", "timeout"))
            continue
        bad = filecheck(text, r.stdout + (r.stderr if "2>&1" in cmd else ""))
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
            out.append((d, "FAIL", first))
        elif bad:
            out.append((d, "FAIL", "no match for: " + bad))
        else:
            out.append((d, "PASS", "lit"))
    return out


def run_file(path, args, compile_bin, check_bin, workdir):
    text = path.read_text(errors="replace")
    if "check." not in text:
        return run_lit(path, text, args, find_bin("iree-run-mlir", args.bin))
    vmfb = pathlib.Path(workdir) / (path.stem + ".vmfb")
    cmd = [compile_bin, f"--iree-hal-target-backends={args.backend}", *args.flags, *extra_flags(text), str(path), "-o", str(vmfb)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return [(d, "COMPILE-FAIL", "timeout") for d in args.devices]
    if p.returncode != 0:
        first = (p.stderr.strip().splitlines() or ["(no message)"])[0]
        return [(d, "COMPILE-FAIL", first) for d in args.devices]
    out = []
    for d in args.devices:
        try:
            r = subprocess.run([check_bin, f"--device={d}", f"--module={vmfb}"], capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            out.append((d, "FAIL", "timeout"))
            continue
        if r.returncode == 0:
            out.append((d, "PASS", ""))
        else:
            lines = [l for l in (r.stdout + r.stderr).splitlines() if l and not l.startswith("[")]
            out.append((d, "FAIL", lines[0] if lines else "exit %d" % r.returncode))
            if args.verbose:
                print(r.stdout + r.stderr)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", help="directories of .mlir files, or single files")
    ap.add_argument("--devices", default="local-sync,local-task")
    ap.add_argument("--backend", default="vmvx")
    ap.add_argument("--flag", dest="flags", action="append", default=[],
                    help="an extra iree-compile flag (repeatable), e.g. --flag=--gree-test-gpu-strategy=llvmpipe")
    ap.add_argument("--bin", default=os.environ.get("GREE_BIN_DIR"))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.devices = args.devices.split(",")
    compile_bin = find_bin("iree-compile", args.bin)
    check_bin = find_bin("iree-check-module", args.bin)
    counts = {}
    with tempfile.TemporaryDirectory() as work:
        for d in args.dirs:
            paths = [pathlib.Path(d)] if pathlib.Path(d).is_file() else sorted(pathlib.Path(d).glob("*.mlir"))
            for path in paths:
                for dev, res, why in run_file(path, args, compile_bin, check_bin, work):
                    counts[res] = counts.get(res, 0) + 1
                    msg = f"{res:12} {dev:11} {path}"
                    print(msg + (f"  -- {why}" if why else ""), flush=True)
    total = sum(counts.values())
    print("TOTAL %d: " % total + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0 if counts.get("FAIL", 0) + counts.get("COMPILE-FAIL", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
