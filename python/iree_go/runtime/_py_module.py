"""VM modules whose functions are written in Python (IREE's
iree.runtime.PyModuleInterface), over libgree's host modules
(gree_host_module_create).

The C callbacks are four module-level cffi callbacks, made once and never
freed; the user data they get is the key of a live interface in ``_live``,
which holds it from ``create()`` until libgree destroys the module (its
handle and every context it was added to released). cffi callbacks take the
GIL themselves, so calls may come from any thread libgree runs them on."""

import collections
import itertools
import threading
import weakref

from .._capi import ffi, lib, check
from ._hal import VmRef
from ._vm import VmModule, VmVariantList

_UNKNOWN = 2  # IREE_STATUS_UNKNOWN
_FAILED_PRECONDITION = 9
_INVALID_ARGUMENT = 3

# Interfaces between create() and their module's destruction, by key.
_live = {}
_keys = itertools.count(1)

# Exceptions Python functions raised, recently, with the status text that
# carried each out: the invocation that fails with that text gets the
# exception as its error's __cause__ (see attach_cause).
_raised = collections.deque(maxlen=64)
_raised_lock = threading.Lock()

_PRIMITIVE = {"i": int, "I": int, "f": float, "F": float}


def _parse_cconv(cconv):
    """(argument kinds, result kinds) of an IREE calling convention, each a
    string of i/I/f/F/r ('v' dropped)."""
    if not isinstance(cconv, str) or not cconv.startswith("0"):
        raise ValueError(f"Unparsable calling convention {cconv!r}: it must start with the version 0 (e.g. '0ii_i')")
    args, _, results = cconv[1:].partition("_")
    for frag in (args, results):
        for c in frag:
            if c in "CD":
                raise ValueError(f"PyModules do not yet support variadic arguments/results (calling convention {cconv!r})")
            if c not in "viIfFr":
                raise ValueError(f"Unparsable calling convention {cconv!r}: unknown type {c!r} (use v, i, I, f, F or r)")
    return args.replace("v", ""), results.replace("v", "")


def _status(code, message):
    return lib.gree_status_allocate(code, message.encode("utf-8", "replace"))


def _exception_status(prefix, exc):
    text = f"{type(exc).__name__}: {exc}"
    with _raised_lock:
        _raised.append((text, exc))
    return _status(_UNKNOWN, f"{prefix}: {text}")


def attach_cause(error):
    """Sets error.__cause__ to the Python exception whose status failed the
    call error reports (the exception a PyModule function raised)."""
    msg = str(error)
    with _raised_lock:
        for i in range(len(_raised) - 1, -1, -1):
            text, exc = _raised[i]
            if text in msg:
                del _raised[i]
                if error.__cause__ is None and exc is not error:
                    error.__cause__ = exc
                return


def _on_error(exc_type, exc_value, tb):
    """Last resort of the status callbacks (an exception outside their
    try, e.g. a KeyboardInterrupt arriving at its edge): a failed status."""
    return _status(_UNKNOWN, f"Exception raised from Python module: {exc_type.__name__}: {exc_value}")


def _iface(user):
    return _live[int(ffi.cast("uintptr_t", user))]


@ffi.callback("gree_status_t(void*, void**)", onerror=_on_error)
def _alloc_state(user, out_state):
    try:
        return _iface(user)._alloc_state(out_state)
    except BaseException as e:  # noqa: BLE001 - reported to libgree as a status
        return _exception_status("Exception in call to PyModule constructor", e)


@ffi.callback("void(void*, void*)")
def _free_state(user, state):
    iface = _live.get(int(ffi.cast("uintptr_t", user)))
    if iface is not None:
        iface._states.pop(int(ffi.cast("uintptr_t", state)), None)


@ffi.callback("gree_status_t(void*, void*, size_t, gree_value_list_t, gree_value_list_t)", onerror=_on_error)
def _call(user, state, function, args, results):
    try:
        return _iface(user)._call(int(ffi.cast("uintptr_t", state)), int(function), args, results)
    except _StatusError as e:
        return _status(e.code, str(e))
    except BaseException as e:  # noqa: BLE001 - reported to libgree as a status
        return _exception_status("Exception raised from Python module", e)


@ffi.callback("void(void*)")
def _destroy(user):
    iface = _live.pop(int(ffi.cast("uintptr_t", user)), None)
    if iface is not None:
        iface._destroyed = True
        iface._states.clear()


_CALLBACKS = ffi.new("gree_host_module_callbacks_t*", {
    "alloc_state": _alloc_state, "free_state": _free_state, "call": _call, "destroy": _destroy,
})


class _StatusError(Exception):
    """A failure of a PyModule call with a status code of its own."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Export:
    __slots__ = ("name", "cconv", "callable", "args", "results")

    def __init__(self, name, cconv, callable):
        self.name, self.cconv, self.callable = name, cconv, callable
        self.args, self.results = _parse_cconv(cconv)


class PyModuleInterface:
    """Builds a VM module whose functions are Python callables (IREE's
    PyModuleInterface). ``export(name, cconv, callable)`` adds a function
    with an IREE calling convention ("0ii_i", "0v", "0rr_r"); ``create()``
    freezes the interface and returns its VmModule. Each context the module
    is added to calls ``ctor(iface)`` once for its state, which every call in
    that context receives as its first argument: ``callable(state, *args)``.
    References arrive as VmRef (None for a null one) and are returned as
    VmRef or objects with ``__iree_vm_ref__``; several results are returned
    as a sequence. An exception a function raises fails the call with a
    RuntimeError naming it (and has it as ``__cause__``).

    States: uninitialized (mutable) until create(); initialized while the
    module lives; destroyed once its VmModule and every context it was added
    to are released."""

    def __init__(self, module_name, ctor):
        self._module_name = str(module_name)
        self._ctor = ctor
        self._exports = []
        self._names = set()
        self._initialized = False
        self._destroyed = False
        self._states = {}
        self._state_keys = itertools.count(1)

    @property
    def initialized(self):
        return self._initialized

    @property
    def destroyed(self):
        return self._initialized and self._destroyed

    def _assert_mutable(self):
        if self._initialized:
            raise RuntimeError("Attempt to mutate a frozen PyModuleInterface")

    def export(self, name, cconv, callable):
        """Exports callable as function name with calling convention cconv."""
        self._assert_mutable()
        if name in self._names:
            raise ValueError(f"PyModule function already defined: {name}")
        self._exports.append(_Export(str(name), str(cconv), callable))
        self._names.add(name)

    def create(self):
        """Freezes the interface and returns its VmModule (once)."""
        self._assert_mutable()
        names = [ffi.new("char[]", e.name.encode("utf-8")) for e in self._exports]
        cconvs = [ffi.new("char[]", e.cconv.encode("utf-8")) for e in self._exports]
        key = next(_keys)
        out = ffi.new("gree_module_t*")
        _live[key] = self
        try:
            check(lib.gree_host_module_create(
                self._module_name.encode("utf-8"), len(self._exports),
                ffi.new("char*[]", names), ffi.new("char*[]", cconvs),
                _CALLBACKS, ffi.cast("void*", key), out), "Error creating PyModule")
        except BaseException:
            _live.pop(key, None)
            raise
        self._initialized = True
        module = VmModule(out[0], None)
        # As in IREE, a function looked up does not keep its module alive:
        # the module is destroyed once it and its contexts are released.
        for f in module._functions:
            f._module = weakref.proxy(module)
        return module

    # Callbacks (under the GIL, on whichever thread libgree calls them).

    def _alloc_state(self, out_state):
        state = self._ctor(self)
        key = next(self._state_keys)
        self._states[key] = state
        out_state[0] = ffi.cast("void*", key)
        return ffi.NULL

    def _call(self, state_key, index, args, results):
        f = self._exports[index]
        state = self._states[state_key]
        arg_list = VmVariantList(_handle=args, _borrowed=True)
        py_args = []
        for i in range(len(arg_list)):
            _, v = arg_list._get(i)
            if f.args[i] == "r":
                v = VmRef(v) if v is not None else None
            py_args.append(v)
        ret = f.callable(state, *py_args)
        if not f.results:
            return ffi.NULL
        values = (ret,) if len(f.results) == 1 else tuple(ret)
        if len(values) != len(f.results):
            raise _StatusError(_INVALID_ARGUMENT, f"Python function '{self._module_name}.{f.name}' returned {len(values)} results; its calling convention {f.cconv} has {len(f.results)}")
        out = VmVariantList(_handle=results, _borrowed=True)
        for i, (kind, v) in enumerate(zip(f.results, values)):
            if kind == "r":
                if v is None:
                    raise _StatusError(_FAILED_PRECONDITION, f"expected ref returned from Python function '{self._module_name}.{f.name}' (result {i}) but got None")
                out.push_ref(v)
            else:
                out._push_typed(kind, _PRIMITIVE[kind](v))
        return ffi.NULL

    def __str__(self):
        s = f"<iree_go.runtime.PyModuleInterface '{self._module_name}'"
        if self._initialized:
            s += " destroyed" if self._destroyed else " initialized"
        return s + ">"

    __repr__ = __str__
