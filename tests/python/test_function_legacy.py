"""FunctionInvoker beyond gree's own modules: IREE's legacy ``iree.abi`` JSON
reflection (descriptors for scalars, arrays, keyword arguments and nested
lists/tuples/dicts), calls without any reflection (packed by Python type),
the ``vm_context.invoke(function, args, results)`` protocol for context
objects that are not VmContexts, and VmVariantList's repr as IREE prints it."""

import json
import threading

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert
from iree_go.runtime import VmVariantList
from iree_go.runtime.function import ArgumentError, FunctionInvoker, ReturnError

DEADLINE_EXCEEDED = 4

PROGRAM = """
func.func @add(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
func.func @swap(%a: i32, %b: i32) -> (i32, i32) {
  return %b, %a : i32, i32
}
func.func @scale(%x: tensor<3xf32>, %k: f32) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %k : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @same(%t: tensor<4xi32>) -> tensor<4xi32> {
  return %t : tensor<4xi32>
}
func.func @spin(%stop: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r = scf.while (%i = %c0) : (i64) -> i64 {
    %go = arith.cmpi ne, %i, %stop : i64
    scf.condition(%go) %i : i64
  } do {
  ^bb0(%i: i64):
    %n = arith.addi %i, %c1 : i64
    scf.yield %n : i64
  }
  return %r : i64
}
"""


def abi(a, r):
    return {"iree.abi": json.dumps({"a": a, "r": r})}


class Recorder:
    """A context object that is not a VmContext: records each call's
    argument list and fills the result list with results(args, ret)."""

    def __init__(self, results=None):
        self.results = results
        self.calls = []

    def invoke(self, vm_function, arg_list, ret_list):
        self.calls.append(arg_list)
        if self.results is not None:
            self.results(arg_list, ret_list)


class Fn:
    """A function stand-in: only reflection, as IREE's tests use."""

    def __init__(self, reflection=None):
        self.reflection = reflection or {}


def pushing(*values):
    def results(args, ret):
        for v in values:
            if isinstance(v, VmVariantList):
                ret.push_list(v)
            elif isinstance(v, float):
                ret.push_float(v)
            elif isinstance(v, int):
                ret.push_int(v)
            else:
                ret.push_ref(v)
    return results


def vm_list(*values):
    lst = VmVariantList(len(values))
    pushing(*values)(None, lst)
    return lst


@pytest.fixture(scope="module")
def device():
    return ireert.get_device("local-sync")


@pytest.fixture(scope="module")
def loaded():
    vmfb = ireec.compile_str(PROGRAM, target_backends=["vmvx"])
    cfg = ireert.Config("local-sync")
    ctx = ireert.SystemContext(config=cfg)
    module = ireert.VmModule.copy_buffer(cfg.vm_instance, vmfb)
    ctx.add_vm_module(module)
    return ctx, module, cfg.device


def with_abi(loaded, name, a, r):
    """An invoker of the real function name carrying iree.abi reflection."""
    ctx, module, device = loaded
    f = module.lookup_function(name)
    f = ireert.VmFunction(module, f.ordinal, f.name, f.calling_convention, None, {**f.reflection, **abi(a, r)})
    return FunctionInvoker(ctx.vm_context, device, f)


def test_keyword_arguments_fill_their_declared_slots(device):
    rec = Recorder(pushing(7))
    inv = FunctionInvoker(rec, device, Fn(abi(["i64", ["named", "x", "f32"], ["named", "y", "i32"]], ["i32"])))
    assert inv(-5, y=2, x=0.5) == 7
    assert inv(9, x=1, y=-3) == 7
    assert [repr(a) for a in rec.calls] == ["<VmVariantList(3): [-5, 0.500000, 2]>",
                                            "<VmVariantList(3): [9, 1.000000, -3]>"]
    for call, text in [(lambda: inv(1, 2, 3), "mismatched call arity: expected 1 got 3"),
                       (lambda: inv(x=1, y=2), "mismatched call arity: expected a value for argument 0"),
                       (lambda: inv(1, x=1), "expected a value for argument 2 .*'y'.*pass it as y="),
                       (lambda: inv(1, x=1, y=2, z=3), r"specified kwarg 'z' is unknown .*: x, y\)")]:
        with pytest.raises(ArgumentError, match=text):
            call()
    assert len(rec.calls) == 2, "a call that fails to pack must not reach the context"


def test_duplicate_keyword_is_an_arity_error(device):
    inv = FunctionInvoker(Recorder(), device, Fn(abi([["named", "a", "i32"], "i32"], [])))
    with pytest.raises(ArgumentError, match="duplicate keyword argument 'a'"):
        inv(1, a=2)


def test_scalar_descriptors_check_type_and_range(device):
    inv = FunctionInvoker(Recorder(), device, Fn(abi(["i8", "i16", "i32", "i64", "f32", "f64"], [])))
    rec = inv._vm_context
    inv(-128, 65535, np.int64(2**31), True, 3, np.float32(0.25))
    assert repr(rec.calls[0]) == "<VmVariantList(6): [-128, -1, -2147483648, 1, 3.000000, 0.250000]>"
    for args, text in [((128 * 2, 0, 0, 0, 0, 0), "256 does not fit in i8"),
                       ((0, 0, 1.5, 0, 0, 0), "expected an integer for i32, got float 1.5 .*argument 2"),
                       ((0, 0, 0, None, 0, 0), "expected an integer for i64, got NoneType"),
                       ((0, 0, 0, 0, "2", 0), "expected a number for f32, got str '2'")]:
        with pytest.raises(ArgumentError, match=text):
            inv(*args)


def test_structures_pack_as_nested_lists(device):
    rec = Recorder()
    desc = ["slist", ["sdict", ["k", "i32"], ["j", "f64"]], ["stuple", "i64", ["slist"]]]
    inv = FunctionInvoker(rec, device, Fn(abi([desc], [])))
    assert inv([{"j": 2.5, "k": 1}, (3, [])]) is None
    assert repr(rec.calls[0]) == "<VmVariantList(1): [List[List[1, 2.500000], List[3, List[]]]]>"
    for value, text in [([{"j": 1.0, "k": 1}], r"expected a sequence with 2 values. got: \[\{"),
                        ([{"j": 1.0}, (1, [])], "expected a dict with 2 values. got: {'j': 1.0}"),
                        ([{"j": 1.0, "x": 1}, (1, [])], "could not get item 'k' from: {'j': 1.0, 'x': 1}: 'k'"),
                        ([{"j": 1.0, "k": 1}, 7], "expected a sequence with 2 values. got: 7")]:
        with pytest.raises(ArgumentError, match=text):
            inv(value)


def test_ndarray_descriptor_converts_and_checks_shape(device):
    rec = Recorder()
    inv = FunctionInvoker(rec, device, Fn(abi([["ndarray", "f32", 2, None, 3]], [])))
    inv([[1, 2, 3], [4, 5, 6]])
    inv(np.zeros((5, 3), np.float64))  # converted to f32, as IREE does
    assert [repr(a) for a in rec.calls] == ["<VmVariantList(1): [HalBufferView(2x3:0x20000021)]>",
                                            "<VmVariantList(1): [HalBufferView(5x3:0x20000021)]>"]
    with pytest.raises(ArgumentError, match=r"expected an array of shape \[\?x3\], got shape \[3\]"):
        inv([1, 2, 3])
    with pytest.raises(ArgumentError, match="could not convert value to numpy array: dtype=dtype\\('float32'\\)"):
        inv("abc")
    da = ireert.asdevicearray(device, np.arange(6, dtype=np.int32).reshape(2, 3))
    inv(da)  # passed as it is, no host transfer
    assert repr(rec.calls[-1]) == "<VmVariantList(1): [HalBufferView(2x3:0x20000011)]>"


def test_malformed_reflection_fails_at_construction(device):
    for refl, err, text in [({"iree.abi": "{"}, RuntimeError, "not valid JSON"),
                            ({"iree.abi": "{\"a\": []}"}, RuntimeError, "Malformed function reflection metadata"),
                            ({"iree.abi": "{\"a\": {}, \"r\": []}"}, RuntimeError, "structure"),
                            (abi(["i1"], []), ValueError, "Unrecognized reflection primitive type: i1"),
                            (abi([["tensor", "f32"]], []), ValueError, "Unrecognized reflection compound type: tensor"),
                            (abi([["ndarray", "q7", 1, 1]], []), ValueError, "could not map abi type 'q7'"),
                            (abi([["named", "a"]], []), ValueError, "Malformed named descriptor")]:
        with pytest.raises(err, match=text):
            FunctionInvoker(Recorder(), device, Fn(refl))


def test_results_unpack_as_python_structures(device):
    nested = vm_list(vm_list(1, 2.0), vm_list(3, 4, 5))
    inv = FunctionInvoker(Recorder(pushing(7, nested)), device, Fn(abi(
        [], ["i32", ["stuple", ["sdict", ["a", "i32"], ["b", "f32"]], ["py_homogeneous_list", "i64"]]])))
    assert inv() == (7, ({"a": 1, "b": 2.0}, [3, 4, 5]))
    # A single structure result is inlined: the function returns its items.
    inv = FunctionInvoker(Recorder(pushing(1, 2)), device, Fn(abi([], [["slist", "i32", "i32"]])))
    assert inv() == [1, 2]
    bv = ireert.asdevicearray(device, np.array([0, 3, 0], np.uint8))._buffer_view
    inv = FunctionInvoker(Recorder(pushing(bv)), device, Fn(abi([], [["ndarray", "i1", 1, 3]])))
    out = inv()
    assert isinstance(out, ireert.DeviceArray) and out.to_host().dtype == np.bool_
    assert out.to_host().tolist() == [False, True, False]


def test_result_errors_say_where(device):
    where_f32 = r"\(while decoding return 0@<VmVariantList\(1\): \[3\]> with description f32"
    for pushed, r, text in [((3,), ["f32"], r"expected an <class 'float'> value but got <class 'int'> " + where_f32),
                            ((3,), ["i32", "i32"], "mismatched return arity: 1 vs 2"),
                            ((3,), ["i1"], "cannot map VM type to Python: i1"),
                            ((3,), [["ndarray", "f32", 1, 1]], "exception converting from VM type to Python"),
                            ((1, 2, 3), [["sdict", ["a", "i32"]]], "mismatched return arity: 3 vs 1")]:
        inv = FunctionInvoker(Recorder(pushing(*pushed)), device, Fn(abi([], r)))
        with pytest.raises(ReturnError, match=text):
            inv()


def test_no_reflection_packs_by_python_type(device):
    rec = Recorder(pushing(1, 2.5, vm_list(3)))
    inv = FunctionInvoker(rec, device, Fn())
    out = inv(4, 0.5, {"b": [1.5], "a": (2,)}, np.float32(1), np.arange(3, dtype=np.int16), None)
    assert repr(rec.calls[0]) == ("<VmVariantList(6): [4, 0.500000, List[List[2], List[1.500000]], "
                                  "HalBufferView(:0x20000021), HalBufferView(3:0x10000011), None]>")
    assert out[:2] == (1, 2.5) and isinstance(out[2], VmVariantList) and list(out[2]) == [3]
    lst = rec.calls[0]
    assert [type(lst.get_variant(i)) for i in range(2)] == [int, float]
    with pytest.raises(ArgumentError, match="could not convert python value to VM: 'x'"):
        inv("x")
    with pytest.raises(ArgumentError, match="kwargs not supported for dynamic dispatch functions"):
        inv(a=1)
    bv = ireert.asdevicearray(device, np.array([1, 2], np.int32))._buffer_view
    res = FunctionInvoker(Recorder(pushing(bv)), device, Fn())()
    assert isinstance(res, ireert.DeviceArray) and res.to_host().tolist() == [1, 2]


def test_vm_variant_list_repr_matches_iree(device):
    lst = vm_list(-1, 0.125, vm_list(2, vm_list()), None)
    bv = ireert.asdevicearray(device, np.zeros((2, 3), np.float32))._buffer_view
    lst.push_ref(bv)
    lst.push_ref(bv.get_buffer())
    lst.push_ref(ireert.HalFence.create_at(device.create_semaphore(0), 1))
    assert repr(lst) == ("<VmVariantList(7): [-1, 0.125000, List[2, List[]], None, HalBufferView(2x3:0x20000021), "
                         "HalBuffer(24), fence(1)]>")
    assert repr(VmVariantList(4)) == "<VmVariantList(0): []>"


def test_real_module_with_legacy_reflection(loaded):
    add = with_abi(loaded, "add", ["i32", ["named", "b", "i32"]], ["i32"])
    assert add(5, b=6) == 11
    assert with_abi(loaded, "swap", ["i32", "i32"], [["stuple", "i32", "i32"]])(1, 2) == (2, 1)
    scale = with_abi(loaded, "scale", [["named", "x", ["ndarray", "f32", 1, 3]], ["named", "k", "f32"]],
                     [["ndarray", "f32", 1, 3]])
    np.testing.assert_allclose(scale(k=2, x=[1, 2, 3]).to_host(), [2, 4, 6])
    # A result that is an argument passed without a copy comes back as a copy.
    same = with_abi(loaded, "same", [["ndarray", "i32", 1, 4]], [["ndarray", "i32", 1, 4]])
    x = np.arange(4, dtype=np.int32)
    y = same(x).to_host()
    x[0] = 99
    assert y.tolist() == [0, 1, 2, 3]


def test_real_module_legacy_calls_keep_deadlines(loaded):
    spin = with_abi(loaded, "spin", ["i64"], ["i64"])
    assert spin(100) == 100
    with pytest.raises(RuntimeError) as e:
        with ireert.deadline(0.05):
            spin(-1)
    assert e.value.code == DEADLINE_EXCEEDED
    assert spin(10) == 10


def test_legacy_calls_from_threads(loaded):
    same = with_abi(loaded, "same", [["ndarray", "i32", 1, 4]], [["ndarray", "i32", 1, 4]])
    errors = []

    def run(k):
        try:
            for i in range(50):
                x = np.full(4, k * 1000 + i, np.int32)
                assert same(x).to_host().tolist() == x.tolist()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_vm_context_subclass_is_called_through_invoke(loaded):
    ctx, module, device = loaded
    seen = []

    class Tracing(ireert.VmContext):
        def invoke(self, function, inputs, outputs, **kw):
            seen.append(repr(inputs))
            super().invoke(function, inputs, outputs, **kw)

    tracing = Tracing(ireert.VmInstance(), [module], _device=device)
    inv = FunctionInvoker(tracing, device, module.lookup_function("add"))
    assert inv(2, 3) == 5
    assert seen == ["<VmVariantList(2): [2, 3]>"]
