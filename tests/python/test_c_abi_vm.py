"""The C ABI's modules, contexts, buffer views and value lists, called
directly through cffi: ownership, NULL arguments and error codes."""

import struct

import numpy as np
import pytest

import iree_go.compiler as ireec
from iree_go._capi import ffi, lib

OK, INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, OUT_OF_RANGE = 0, 3, 5, 6, 11
F32, SI32 = 0x21000020, 0x11000020

PROGRAM = """
module @m {
  func.func @add(%a: i32, %b: i32) -> i32 {
    %0 = arith.addi %a, %b : i32
    return %0 : i32
  }
  func.func @twice(%a: f32) -> f32 {
    %0 = arith.addf %a, %a : f32
    return %0 : f32
  }
  func.func @id(%t: tensor<2xf32>) -> tensor<2xf32> {
    return %t : tensor<2xf32>
  }
  func.func @none() {
    return
  }
}
"""


def code(status):
    """The status's code, freeing it."""
    c = int(lib.gree_status_code(status))
    lib.gree_status_free(status)
    return c


def message(status):
    m = ffi.string(lib.gree_status_message(status)).decode()
    lib.gree_status_free(status)
    return m


@pytest.fixture(scope="module")
def device():
    drv = ffi.new("gree_driver_t*")
    assert code(lib.gree_driver_create(b"local-task", drv)) == OK
    dev = ffi.new("gree_device_t*")
    assert code(lib.gree_driver_create_default_device(drv[0], dev)) == OK
    lib.gree_driver_release(drv[0])
    yield dev[0]
    lib.gree_device_release(dev[0])


@pytest.fixture(scope="module")
def module():
    data = ireec.compile_str(PROGRAM, target_backends=["vmvx"])
    out = ffi.new("gree_module_t*")
    assert code(lib.gree_module_load(data, len(data), out)) == OK
    yield out[0]
    lib.gree_module_release(out[0])


def new_view(device, array, et):
    shape = ffi.new("int64_t[]", list(array.shape) or [0])
    out = ffi.new("gree_buffer_view_t*")
    st = lib.gree_buffer_view_create(device, shape, array.ndim, et, ffi.from_buffer(array), array.nbytes, out)
    assert code(st) == OK
    return out[0]


def new_list():
    out = ffi.new("gree_value_list_t*")
    assert code(lib.gree_value_list_create(out)) == OK
    return out[0]


def get(lst, i):
    t = ffi.new("gree_value_type_t*")
    iv, fv = ffi.new("int64_t*"), ffi.new("double*")
    bv, sub = ffi.new("gree_buffer_view_t*"), ffi.new("gree_value_list_t*")
    st = lib.gree_value_list_get(lst, i, t, iv, fv, bv, sub)
    c = code(st)
    return c, int(t[0]), int(iv[0]), float(fv[0]), bv[0], sub[0]


def read(view):
    n = lib.gree_buffer_view_byte_length(view)
    buf = ffi.new("uint8_t[]", n)
    assert code(lib.gree_buffer_view_read(view, buf, n)) == OK
    return bytes(ffi.buffer(buf, n))


def test_null_arguments_are_invalid_argument(device, module):
    out_m = ffi.new("gree_module_t*")
    out_c = ffi.new("gree_context_t*")
    out_v = ffi.new("gree_buffer_view_t*")
    out_l = ffi.new("gree_value_list_t*")
    text = ffi.new("char**")
    shape = ffi.new("int64_t[]", [2])
    data = ffi.new("float[]", 2)
    calls = [
        lambda: lib.gree_module_load(ffi.NULL, 10, out_m),
        lambda: lib.gree_module_load(b"x", 1, ffi.NULL),
        lambda: lib.gree_module_function_info(ffi.NULL, 0, ffi.NULL, ffi.NULL, ffi.NULL),
        lambda: lib.gree_context_create(ffi.NULL, out_c),
        lambda: lib.gree_context_create(device, ffi.NULL),
        lambda: lib.gree_context_add_module(ffi.NULL, module),
        lambda: lib.gree_context_add_check_module(ffi.NULL),
        lambda: lib.gree_context_invoke(ffi.NULL, b"m", b"add", ffi.NULL, out_l),
        lambda: lib.gree_buffer_view_create(ffi.NULL, shape, 1, F32, data, 8, out_v),
        lambda: lib.gree_buffer_view_create(device, ffi.NULL, 1, F32, data, 8, out_v),
        lambda: lib.gree_buffer_view_create(device, shape, 1, F32, ffi.NULL, 8, out_v),
        lambda: lib.gree_buffer_view_create(device, shape, 1, F32, data, 8, ffi.NULL),
        lambda: lib.gree_buffer_view_read(ffi.NULL, data, 8),
        lambda: lib.gree_buffer_view_format(ffi.NULL, -1, text),
        lambda: lib.gree_value_list_create(ffi.NULL),
        lambda: lib.gree_value_list_push_null(ffi.NULL),
        lambda: lib.gree_value_list_push_i32(ffi.NULL, 1),
        lambda: lib.gree_value_list_push_i64(ffi.NULL, 1),
        lambda: lib.gree_value_list_push_f32(ffi.NULL, 1),
        lambda: lib.gree_value_list_push_f64(ffi.NULL, 1),
        lambda: lib.gree_value_list_push_buffer_view(ffi.NULL, ffi.NULL),
        lambda: lib.gree_value_list_push_list(ffi.NULL, ffi.NULL),
        lambda: lib.gree_value_list_get(ffi.NULL, 0, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL),
    ]
    for i, call in enumerate(calls):
        assert code(call()) == INVALID_ARGUMENT, i
    ctx = ffi.new("gree_context_t*")
    assert code(lib.gree_context_create(device, ctx)) == OK
    lst = new_list()
    assert code(lib.gree_context_add_module(ctx[0], ffi.NULL)) == INVALID_ARGUMENT
    assert code(lib.gree_context_invoke(ctx[0], ffi.NULL, b"add", ffi.NULL, out_l)) == INVALID_ARGUMENT
    assert code(lib.gree_context_invoke(ctx[0], b"m", b"add", ffi.NULL, ffi.NULL)) == INVALID_ARGUMENT
    assert code(lib.gree_value_list_push_buffer_view(lst, ffi.NULL)) == INVALID_ARGUMENT
    assert code(lib.gree_value_list_push_list(lst, ffi.NULL)) == INVALID_ARGUMENT
    assert lib.gree_value_list_size(lst) == 0
    lib.gree_value_list_release(lst)
    lib.gree_context_release(ctx[0])
    # Accessors of NULL handles return zeros; releases of NULL are no-ops.
    assert lib.gree_module_name(ffi.NULL) == ffi.NULL and lib.gree_module_function_count(ffi.NULL) == 0
    assert lib.gree_buffer_view_rank(ffi.NULL) == 0 and lib.gree_buffer_view_dim(ffi.NULL, 0) == 0
    assert lib.gree_buffer_view_element_type(ffi.NULL) == 0 and lib.gree_buffer_view_byte_length(ffi.NULL) == 0
    assert lib.gree_value_list_size(ffi.NULL) == 0
    for release in (lib.gree_module_release, lib.gree_context_release, lib.gree_buffer_view_release,
                    lib.gree_value_list_release):
        release(ffi.NULL)


def test_module_info(module):
    assert ffi.string(lib.gree_module_name(module)) == b"m"
    assert lib.gree_module_function_count(module) == 4
    names = []
    for i in range(4):
        n, cc, decl = ffi.new("char**"), ffi.new("char**"), ffi.new("char**")
        assert code(lib.gree_module_function_info(module, i, n, cc, decl)) == OK
        names.append((ffi.string(n[0]).decode(), ffi.string(cc[0]).decode()))
        assert ffi.string(decl[0]).startswith(b"sync func @")
    assert names == [("add", "0ii_i"), ("twice", "0f_f"), ("id", "0r_r"), ("none", "0v_v")]
    assert code(lib.gree_module_function_info(module, 0, ffi.NULL, ffi.NULL, ffi.NULL)) == OK
    assert code(lib.gree_module_function_info(module, 4, ffi.NULL, ffi.NULL, ffi.NULL)) == OUT_OF_RANGE
    bad = ffi.new("gree_module_t*")
    assert code(lib.gree_module_load(ffi.NULL, 0, bad)) != OK and bad[0] == ffi.NULL


def test_buffer_views(device):
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    v = new_view(device, a, F32)
    a[0, 0] = 100  # the view holds a copy
    assert lib.gree_buffer_view_rank(v) == 2
    assert [lib.gree_buffer_view_dim(v, i) for i in range(3)] == [2, 3, 0]
    assert lib.gree_buffer_view_element_type(v) == F32 and lib.gree_buffer_view_byte_length(v) == 24
    assert struct.unpack("6f", read(v)) == (1, 2, 3, 4, 5, 6)
    small = ffi.new("uint8_t[]", 8)
    assert code(lib.gree_buffer_view_read(v, small, 8)) == INVALID_ARGUMENT
    text = ffi.new("char**")
    assert code(lib.gree_buffer_view_format(v, -1, text)) == OK
    assert ffi.string(text[0]) == b"2x3xf32=[1 2 3][4 5 6]"
    lib.gree_free(text[0])
    lib.gree_buffer_view_release(v)
    shape = ffi.new("int64_t[]", [2])
    out = ffi.new("gree_buffer_view_t*")
    data = ffi.new("float[]", 4)
    st = lib.gree_buffer_view_create(device, shape, 1, F32, data, 12, out)
    assert code(st) == INVALID_ARGUMENT and out[0] == ffi.NULL
    neg = ffi.new("int64_t[]", [-1])
    assert code(lib.gree_buffer_view_create(device, neg, 1, F32, data, 4, out)) == INVALID_ARGUMENT
    assert code(lib.gree_buffer_view_create(device, shape, 1, 0, data, 0, out)) == INVALID_ARGUMENT
    empty = ffi.new("int64_t[]", [0, 5])
    assert code(lib.gree_buffer_view_create(device, empty, 2, F32, ffi.NULL, 0, out)) == OK
    assert lib.gree_buffer_view_byte_length(out[0]) == 0 and lib.gree_buffer_view_dim(out[0], 1) == 5
    lib.gree_buffer_view_release(out[0])
    scalar = ffi.new("int32_t[]", [7])
    assert code(lib.gree_buffer_view_create(device, ffi.NULL, 0, SI32, scalar, 4, out)) == OK
    assert lib.gree_buffer_view_rank(out[0]) == 0 and read(out[0]) == struct.pack("i", 7)
    lib.gree_buffer_view_release(out[0])


def test_value_lists(device):
    lst = new_list()
    assert code(lib.gree_value_list_push_null(lst)) == OK
    assert code(lib.gree_value_list_push_i32(lst, -7)) == OK
    assert code(lib.gree_value_list_push_i64(lst, 1 << 40)) == OK
    assert code(lib.gree_value_list_push_f32(lst, 1.5)) == OK
    assert code(lib.gree_value_list_push_f64(lst, 0.1)) == OK
    v = new_view(device, np.array([3, 4], np.int32), SI32)
    assert code(lib.gree_value_list_push_buffer_view(lst, v)) == OK
    lib.gree_buffer_view_release(v)  # the list keeps its own reference
    sub = new_list()
    assert code(lib.gree_value_list_push_i32(sub, 1)) == OK
    assert code(lib.gree_value_list_push_list(lst, sub)) == OK
    assert code(lib.gree_value_list_push_i32(sub, 2)) == OK  # pushed a copy: not seen in lst
    lib.gree_value_list_release(sub)
    assert lib.gree_value_list_size(lst) == 7
    assert get(lst, 0)[:2] == (OK, lib.GREE_VALUE_NULL)
    assert get(lst, 1)[:3] == (OK, lib.GREE_VALUE_I32, -7)
    assert get(lst, 2)[:3] == (OK, lib.GREE_VALUE_I64, 1 << 40)
    assert get(lst, 3)[:2] == (OK, lib.GREE_VALUE_F32) and get(lst, 3)[3] == 1.5
    assert get(lst, 4)[:2] == (OK, lib.GREE_VALUE_F64) and get(lst, 4)[3] == 0.1
    c, t, _, _, view, none = get(lst, 5)
    assert (c, t) == (OK, lib.GREE_VALUE_BUFFER_VIEW) and none == ffi.NULL
    assert read(view) == struct.pack("2i", 3, 4)
    lib.gree_buffer_view_release(view)
    c, t, _, _, none, nested = get(lst, 6)
    assert (c, t) == (OK, lib.GREE_VALUE_LIST) and none == ffi.NULL
    assert lib.gree_value_list_size(nested) == 1 and get(nested, 0)[:3] == (OK, lib.GREE_VALUE_I32, 1)
    lib.gree_value_list_release(nested)
    assert get(lst, 7)[0] == OUT_OF_RANGE
    # A value read twice gives two references, each released on its own.
    _, _, _, _, v1, _ = get(lst, 5)
    _, _, _, _, v2, _ = get(lst, 5)
    lib.gree_buffer_view_release(v1)
    assert read(v2) == struct.pack("2i", 3, 4)
    lib.gree_buffer_view_release(v2)
    lib.gree_value_list_release(lst)


def test_context_invoke(device, module):
    ctx = ffi.new("gree_context_t*")
    assert code(lib.gree_context_create(device, ctx)) == OK
    c = ctx[0]
    assert code(lib.gree_context_add_module(c, module)) == OK
    assert code(lib.gree_context_add_module(c, module)) == ALREADY_EXISTS
    assert code(lib.gree_context_add_check_module(c)) == OK
    out = ffi.new("gree_value_list_t*")
    args = new_list()
    lib.gree_value_list_push_i64(args, 40)  # i64 for an i32 parameter: converted
    lib.gree_value_list_push_i32(args, 2)
    assert code(lib.gree_context_invoke(c, b"m", b"add", args, out)) == OK
    assert get(out[0], 0)[:3] == (OK, lib.GREE_VALUE_I32, 42)
    assert get(args, 0)[:3] == (OK, lib.GREE_VALUE_I64, 40)  # args unchanged
    lib.gree_value_list_release(out[0])
    lib.gree_value_list_release(args)
    args = new_list()
    lib.gree_value_list_push_f64(args, 1.25)
    assert code(lib.gree_context_invoke(c, b"m", b"twice", args, out)) == OK
    assert get(out[0], 0)[1:4:2] == (lib.GREE_VALUE_F32, 2.5)
    lib.gree_value_list_release(out[0])
    lib.gree_value_list_release(args)
    args = new_list()
    lib.gree_value_list_push_i64(args, 1 << 40)
    lib.gree_value_list_push_i32(args, 1)
    st = lib.gree_context_invoke(c, b"m", b"add", args, out)
    assert lib.gree_status_code(st) == INVALID_ARGUMENT and "does not fit in an i32" in message(st)
    assert out[0] == ffi.NULL
    lib.gree_value_list_release(args)
    assert code(lib.gree_context_invoke(c, b"m", b"none", ffi.NULL, out)) == OK
    assert lib.gree_value_list_size(out[0]) == 0
    lib.gree_value_list_release(out[0])
    st = lib.gree_context_invoke(c, b"m", b"add", ffi.NULL, out)
    assert lib.gree_status_code(st) == INVALID_ARGUMENT and "expects 2 arguments" in message(st)
    assert code(lib.gree_context_invoke(c, b"nope", b"add", ffi.NULL, out)) == NOT_FOUND
    assert code(lib.gree_context_invoke(c, b"m", b"nope", ffi.NULL, out)) == NOT_FOUND
    args = new_list()
    v = new_view(device, np.array([1, 2, 3], np.float32), F32)
    lib.gree_value_list_push_buffer_view(args, v)
    st = lib.gree_context_invoke(c, b"m", b"id", args, out)
    assert lib.gree_status_code(st) == INVALID_ARGUMENT
    assert "expected tensor<2xf32>, got tensor<3xf32>" in message(st)
    lib.gree_buffer_view_release(v)
    lib.gree_value_list_release(args)
    lib.gree_context_release(c)
