#!/usr/bin/env python3
"""Runs IREE's own e2e check suites for one target backend, as IREE's build
defines them.

IREE's tests/e2e/<suite>/CMakeLists.txt lists, per backend, the test files
(iree_check_single_backend_test_suite: SRCS, TARGET_BACKEND, DRIVER,
COMPILER_FLAGS). This script reads those lists from an IREE checkout (never
copied into this repository), keeps the suites of the requested backend and
driver, and runs each suite's files through run_check_tests.py with the
suite's compiler flags, printing one line per file and a total.

    tests/e2e/iree_suites.py IREE_TESTS_E2E_DIR --backend vulkan-spirv \
        --driver vulkan [--suite linalg --suite tensor_ops ...] [--bin DIR]
        [--flag=--extra-compiler-flag ...]

Suites whose LABELS include "manual" (opt-in configurations such as
vulkan's buffer-device-address ABI) are skipped, as IREE's CI skips them.
Exit status: 0 when nothing failed.
"""
import argparse
import pathlib
import re
import subprocess
import sys

DEFAULT_SUITES = ["linalg", "tensor_ops", "regression", "stablehlo_ops", "tosa_ops", "linalg_ext_ops"]


def cmake_blocks(text):
    """The argument lists of each iree_check_single_backend_test_suite call."""
    for m in re.finditer(r"iree_check_single_backend_test_suite\((.*?)\n\)", text, re.S):
        yield m.group(1)


def parse_block(body):
    """A suite call's keyword arguments: {KEY: [values]}."""
    keys = {"NAME", "SRCS", "TARGET_BACKEND", "DRIVER", "COMPILER_FLAGS", "RUNNER_ARGS", "LABELS", "INPUT_TYPE", "TIMEOUT", "DEPS"}
    out, cur = {}, None
    for tok in re.findall(r'"(?:[^"\\]|\\.)*"|\S+', body):
        if tok in keys:
            cur = tok
            out[cur] = []
        elif cur:
            out[cur].append(tok.strip('"').replace("\\(", "(").replace("\\)", ")"))
    return out


def suites(e2e, names, backend, driver):
    """(suite dir, files, compiler flags) for each matching suite."""
    for name in names:
        cm = pathlib.Path(e2e) / name / "CMakeLists.txt"
        if not cm.exists():
            print(f"SKIP suite {name}: no {cm}", file=sys.stderr)
            continue
        for body in cmake_blocks(cm.read_text()):
            b = parse_block(body)
            if b.get("TARGET_BACKEND") != [backend] or b.get("DRIVER") != [driver]:
                continue
            if "manual" in b.get("LABELS", []):
                continue
            yield cm.parent, b.get("NAME", ["?"])[0], b.get("SRCS", []), b.get("COMPILER_FLAGS", [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("e2e", help="IREE's tests/e2e directory")
    ap.add_argument("--backend", default="vulkan-spirv")
    ap.add_argument("--driver", default="vulkan")
    ap.add_argument("--device", help="device to run on (default: the driver)")
    ap.add_argument("--suite", action="append", help="suite directory (default: %s)" % ", ".join(DEFAULT_SUITES))
    ap.add_argument("--flag", dest="flags", action="append", default=[], help="extra iree-compile flag")
    ap.add_argument("--bin")
    ap.add_argument("--timeout", default="300")
    args = ap.parse_args(argv)
    runner = pathlib.Path(__file__).with_name("run_check_tests.py")
    passed = total = 0
    failures = []
    for d, name, srcs, flags in suites(args.e2e, args.suite or DEFAULT_SUITES, args.backend, args.driver):
        files = [str(d / s) for s in srcs if s.endswith(".mlir")]
        if not files:
            continue
        cmd = [sys.executable, str(runner), *files, "--backend", args.backend, "--devices", args.device or args.driver, "--timeout", args.timeout]
        cmd += [f"--flag={f}" for f in flags + args.flags]
        if args.bin:
            cmd += ["--bin", args.bin]
        print(f"== {d.name}/{name} ({len(files)} files) flags: {' '.join(flags + args.flags) or '-'}", flush=True)
        r = subprocess.run(cmd, capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if line.startswith("TOTAL"):
                continue
            print(line, flush=True)
            total += 1
            if line.startswith("PASS"):
                passed += 1
            else:
                failures.append(line)
        if r.returncode not in (0, 1):
            print(r.stderr, file=sys.stderr)
    print(f"TOTAL {total}: PASS {passed}, NOT PASSING {total - passed}")
    for f in failures:
        print("  " + f)
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
