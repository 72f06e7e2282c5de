"""Benchmarking modules from Python, as ``iree.runtime.benchmark`` does.

``benchmark_module`` runs the packaged ``iree-benchmark-module`` on a module
(a ``VmModule`` loaded from memory is piped to it with ``--module=-``) and
parses its console table into ``BenchmarkResult`` rows: name, real time,
CPU time, iterations and the user counters column (``items_per_second``).
"""

import os
import subprocess
from collections import namedtuple
from typing import List, Optional, Sequence, Union

import numpy as np

from .._tools import tool_path
from ._vm import VmModule
from .dtypes import DTYPE_TO_ABI_TYPE

__all__ = ["BenchmarkResult", "BenchmarkTimeoutError", "BenchmarkToolError", "benchmark_exe", "benchmark_module"]

BenchmarkResult = namedtuple("BenchmarkResult", "benchmark_name time cpu_time iterations user_counters")


class BenchmarkToolError(Exception):
    """The benchmark tool failed; the message holds its output."""

    def __init__(self, message):
        self.message = message
        super().__init__(message)


class BenchmarkTimeoutError(Exception):
    """The benchmark ran past the timeout the caller gave."""


def benchmark_exe() -> str:
    """The path of the ``iree-benchmark-module`` executable the package runs."""
    return tool_path("iree-benchmark-module")


def _input_flag(value) -> str:
    if isinstance(value, str):
        return f"--input={value}"
    arr = np.asarray(value)
    try:
        abi = DTYPE_TO_ABI_TYPE[arr.dtype]
    except KeyError:
        raise ValueError(f"cannot pass an array of dtype {arr.dtype} to the benchmark tool") from None
    flat = arr.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        values = str(flat[0])
    else:
        values = ",".join(str(v) for v in flat)
    shape = "x".join(str(d) for d in arr.shape)
    return f"--input={shape}x{abi}={values}" if shape else f"--input={abi}={values}"


def _build_benchmark_args(module, entry_function=None, inputs=None, **kwargs):
    """The tool's command line for a run, and the module bytes to pipe to it
    (None when the module is a file)."""
    args = [benchmark_exe()]
    blob = None
    if isinstance(module, VmModule):
        funcs = [f for f in module.function_names if f != "__init"]
        if entry_function is None:
            if len(funcs) != 1:
                raise ValueError(f"No function specified with multiple options {funcs}")
            entry_function = funcs[0]
        if entry_function not in funcs:
            raise ValueError(f"Attempted to benchmark unknown function {entry_function} of options {funcs}")
        blob = module.stashed_flatbuffer_blob
        if blob is None:
            raise ValueError("the module was not loaded from a flatbuffer in memory; pass its file path instead")
        args.append("--module=-")
    else:
        if entry_function is None:
            raise ValueError("When specifying the module as a filepath the entry function must be specified.")
        args.append(f"--module={os.fspath(module)}")
    args.append(f"--function={entry_function}")
    args.extend(f"--{k}={v}" for k, v in kwargs.items())
    args.extend(_input_flag(v) for v in inputs or [])
    return args, None if blob is None else bytes(blob)


def _parse(out: str) -> List[BenchmarkResult]:
    results = []
    # The table: a rule, the header, a rule, then one row per run.
    for line in out.split("\n")[3:]:
        cols = line.split()
        if not cols:
            continue
        if len(cols) < 6:
            raise ValueError(f"Benchmark standard output is not expected. Line: '{line}' should have at least 6 columns.")
        counters = " ".join(cols[6:]) or None
        results.append(BenchmarkResult(cols[0], " ".join(cols[1:3]), " ".join(cols[3:5]), cols[5], counters))
    return results


def benchmark_module(module: Union[VmModule, str, os.PathLike], entry_function: Optional[str] = None,
                     inputs: Optional[Sequence] = None, timeout: Optional[float] = None, **kwargs):
    """Benchmarks ``entry_function`` of ``module`` with ``iree-benchmark-module``.

    ``inputs`` are ``--input`` strings or numpy arrays; other keywords become
    flags (``device="local-task"`` → ``--device=local-task``). Returns a list
    of ``BenchmarkResult``; raises ``BenchmarkToolError`` when the tool fails
    and ``BenchmarkTimeoutError`` after ``timeout`` seconds."""
    args, blob = _build_benchmark_args(module, entry_function, inputs, **kwargs)
    try:
        proc = subprocess.run(args, input=blob, timeout=timeout, capture_output=True)
    except subprocess.TimeoutExpired:
        raise BenchmarkTimeoutError(f"Benchmark timed out after {timeout} seconds") from None
    out, err = proc.stdout.decode(), proc.stderr.decode()
    if proc.returncode != 0:
        if "INVALID_ARGUMENT;" in err:
            raise ValueError(f"Invalid inputs specified for benchmarking:\n{err}")
        raise BenchmarkToolError(f"stderr:\n{err}\nstdout:\n{out}")
    return _parse(out)
