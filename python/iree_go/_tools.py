"""Console-script trampolines: ``iree-compile`` and friends exec the Go
binaries packaged in ``iree_go/_bin`` (IREE's packages ship trampolines too)."""

import os
import sys

from . import _llvmlite

_here = os.path.dirname(os.path.abspath(__file__))
_repo_build = os.path.join(os.path.dirname(os.path.dirname(_here)), "build")


def tool_path(name):
    for d in (os.path.join(_here, "_bin"), _repo_build):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(
        f"{name} is not packaged in {os.path.join(_here, '_bin')}; reinstall with `pip install .`"
    )


def _exec(name):
    path = tool_path(name)
    _llvmlite.configure()  # llvm-cpu may use llvmlite's LLVM
    os.execv(path, [name] + sys.argv[1:])


def iree_compile():
    _exec("iree-compile")


def iree_run_module():
    _exec("iree-run-module")


def iree_check_module():
    _exec("iree-check-module")


def iree_benchmark_module():
    _exec("iree-benchmark-module")


def iree_dump_module():
    _exec("iree-dump-module")


def iree_run_mlir():
    _exec("iree-run-mlir")


def iree_import_onnx():
    _exec("iree-import-onnx")


def iree_cpuinfo():
    _exec("iree-cpuinfo")


def iree_benchmark_executable():
    _exec("iree-benchmark-executable")


def iree_create_parameters():
    _exec("iree-create-parameters")


def iree_dump_parameters():
    _exec("iree-dump-parameters")


def iree_convert_parameters():
    _exec("iree-convert-parameters")
