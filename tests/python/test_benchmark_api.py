"""iree_go.runtime.benchmark: IREE's Python benchmarking helpers over the
packaged iree-benchmark-module."""

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert
from iree_go.runtime.benchmark import _build_benchmark_args

MUL = """
func.func @simple_mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @neg(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.negf %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.fixture(scope="module")
def module():
    blob = ireec.compile_str(MUL, target_backends=["vmvx"])
    return ireert.VmModule.copy_buffer(ireert.VmInstance(), blob)


def test_arguments_in_iree_order():
    args, blob = _build_benchmark_args("m.vmfb", "f", [np.array([1.5, 2], np.float32), np.ones([3], np.int8), "2xi32=7"],
                                       device="local-sync", benchmark_repetitions=3)
    assert args == [ireert.benchmark_exe(), "--module=m.vmfb", "--function=f", "--device=local-sync",
                    "--benchmark_repetitions=3", "--input=2xf32=1.5,2.0", "--input=3xi8=1", "--input=2xi32=7"]
    assert blob is None
    with pytest.raises(ValueError, match="entry function must be specified"):
        _build_benchmark_args("m.vmfb")


def test_module_in_memory_piped_and_parsed(module):
    a = np.array([1, 2, 3, 4], np.float32)
    rows = ireert.benchmark_module(module, "simple_mul", inputs=[a, a], device="local-sync", benchmark_min_time="0.02s")
    assert len(rows) == 1
    r = rows[0]
    assert r.benchmark_name == "BM_simple_mul/process_time/real_time"
    value, unit = r.time.split(" ")
    assert float(value) > 0 and unit == "ms"
    assert int(r.iterations) > 0
    rate = r.user_counters
    assert rate.startswith("items_per_second=") and rate.endswith("/s")


def test_repetitions_give_aggregate_rows(tmp_path, module):
    path = tmp_path / "m.vmfb"
    path.write_bytes(bytes(module.stashed_flatbuffer_blob))
    rows = ireert.benchmark_module(path, "neg", inputs=["2xf32=1"], device="local-task",
                                   benchmark_min_time="0.01s", benchmark_repetitions=2)
    names = [r.benchmark_name.rsplit("/", 1)[1] for r in rows]
    assert names == ["real_time", "real_time", "real_time_mean", "real_time_median", "real_time_stddev"]


def test_errors(module):
    with pytest.raises(ValueError, match="multiple options"):
        ireert.benchmark_module(module, inputs=[])
    with pytest.raises(ValueError, match="unknown function nope"):
        ireert.benchmark_module(module, "nope")
    with pytest.raises((ValueError, ireert.BenchmarkToolError), match="takes 4xf32"):
        # wrong shape: the error says what the function takes
        ireert.benchmark_module(module, "simple_mul", inputs=["3xf32=1", "3xf32=1"], device="local-sync")


def test_timeout():
    big = ireec.compile_str("""
func.func @mm(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %z = tensor.empty() : tensor<1024x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%z : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}""", target_backends=["vmvx"])
    m = ireert.VmModule.copy_buffer(ireert.VmInstance(), big)
    with pytest.raises(ireert.BenchmarkTimeoutError):
        ireert.benchmark_module(m, inputs=["1024x1024xf32=1", "1024x1024xf32=1"], device="local-sync", timeout=0.1)
