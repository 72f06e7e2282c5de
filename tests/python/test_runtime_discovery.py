"""iree_go.runtime's driver and device discovery, as IREE's guides use it."""

import io
import os
import re
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

import iree_go.runtime as ireert
from iree_go.runtime import _binding

from conftest import driver_available

EXPECTED_ORDER = ["cuda", "hip", "local-sync", "local-task", "vulkan"]


def test_query_available_drivers_in_registration_order():
    drivers = ireert.system_setup.query_available_drivers()
    assert drivers == ireert.query_available_drivers()
    assert drivers == ireert.HalDriver.query()
    assert drivers == EXPECTED_ORDER


def test_local_task_devices_exact():
    # The literal acceptance check.
    assert ireert.get_driver("local-task").query_available_devices() == [
        {"device_id": 0, "path": "", "name": "default"}
    ]
    assert ireert.get_driver("local-sync").query_available_devices() == [
        {"device_id": 0, "path": "", "name": "default"}
    ]


def test_driver_cache_is_keyed_by_scheme():
    _binding.clear_hal_driver_cache()
    a = ireert.get_driver("local-task")
    assert ireert.get_driver("local-task://") is a
    assert ireert.get_driver("local-task:") is a
    assert ireert.get_driver("local-sync") is not a


def test_create_devices_every_way():
    d = ireert.get_driver("local-task")
    assert repr(d.create_default_device()) == "local-task"
    assert repr(d.create_device(0)) == "local-task"
    info = d.query_available_devices()[0]
    assert repr(d.create_device(info)) == "local-task"
    for uri in ("local-task", "local-task://", "local-task:"):
        assert repr(d.create_device_by_uri(uri)) == "local-task"
    dev = ireert.get_device("local-sync")
    assert repr(dev) == "local-sync"
    assert ireert.get_device("local-sync") is dev  # cached per URI
    assert ireert.get_device("local-sync", cache=False) is not dev
    assert (dev.device_id, dev.path, dev.name) == (0, "", "default")


def test_errors_map_to_iree_exceptions():
    d = ireert.get_driver("local-task")
    with pytest.raises(ValueError, match=r"Device id 5555 not found\. Available devices: \[\{'device_id': 0"):
        d.create_device(5555)
    with pytest.raises(ValueError, match="device paths not yet implemented"):
        d.create_device_by_uri("local-task://0")
    with pytest.raises(ValueError, match="no driver 'nope' registered") as e:
        ireert.get_driver("nope")
    assert e.value.code == 5  # NOT_FOUND
    with pytest.raises(ValueError, match="no driver 'nope' registered"):
        ireert.get_device("nope://0")


def test_get_first_device():
    assert repr(ireert.get_first_device(["nope", "local-sync"])) == "local-sync"
    # The default list starts with local-task.
    assert repr(ireert.get_first_device()) == "local-task"
    with pytest.raises(ValueError, match="No device found from list"):
        ireert.get_first_device(["nope1", "nope2"])


def test_get_first_device_env(monkeypatch):
    monkeypatch.setenv("IREE_DEFAULT_DEVICE", "nope,local-sync")
    assert repr(ireert.get_first_device(cache=False)) == "local-sync"


@pytest.mark.parametrize(
    "driver,library",
    [("cuda", "libcuda.so.1"), ("hip", "libamdhip64.so")],
)
def test_missing_gpu_library_is_named(driver, library):
    ok, reason = driver_available(driver)
    if ok:
        pytest.skip(f"{driver} is available on this machine; the missing-library path cannot be seen")
    with pytest.raises(RuntimeError) as e:
        _binding.create_hal_driver(driver)
    assert library in str(e.value)
    assert "UNAVAILABLE" in str(e.value)
    assert e.value.code == 14


def test_guide_loop_runs_as_printed():
    # The loop from IREE's deployment-configurations guide, verbatim but for
    # the import line.
    buf = io.StringIO()
    with redirect_stdout(buf):
        for driver_name in ireert.system_setup.query_available_drivers():
            print(driver_name)
            try:
                driver = ireert.get_driver(driver_name)
                device_infos = driver.query_available_devices()
                for device_info in device_infos:
                    print(f"  {device_info}")
            except:  # noqa: E722 - as in the guide
                print(f"  (failed to initialize)")
    out = buf.getvalue()
    assert "local-task\n  {'device_id': 0, 'path': '', 'name': 'default'}\n" in out
    for name in EXPECTED_ORDER:
        assert re.search(rf"^{name}$", out, re.M)
    for name in ("cuda", "hip"):
        if not driver_available(name)[0]:
            assert f"{name}\n  (failed to initialize)\n" in out


def test_vulkan_devices_when_available():
    ok, reason = driver_available("vulkan")
    if not ok:
        pytest.skip(f"vulkan unavailable: {reason}")
    driver = ireert.get_driver("vulkan")
    devices = driver.query_available_devices()
    if not devices:
        pytest.skip("vulkan loader present but no physical device")
    for i, info in enumerate(devices):
        assert set(info) == {"device_id", "path", "name"}
        assert info["device_id"] == i + 1
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", info["path"])
        dev = ireert.get_device("vulkan://" + info["path"], cache=False)
        assert repr(dev) == "vulkan"
        assert dev.path == info["path"]
        dump = driver.dump_device_info(info["device_id"])
        assert "queue_families:" in dump and "memory_heaps:" in dump
    assert repr(ireert.get_device("vulkan:0", cache=False)) == "vulkan"


def test_parse_flags():
    ireert.flags.parse_flags("--cuda_default_index=0")
    with pytest.raises(ValueError, match="not recognized"):
        ireert.flags.parse_flags("--no_such_flag=1")
    with pytest.raises(ValueError, match="wants an integer"):
        ireert.flags.parse_flags("--cuda_default_index=abc")


def test_bad_env_flags_raise_on_import():
    env = dict(os.environ, IREE_PY_RUNTIME_FLAGS="--no_such_flag=1")
    r = subprocess.run([sys.executable, "-c", "import iree_go.runtime"], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "Bad flag value in environment variable IREE_PY_RUNTIME_FLAGS='--no_such_flag=1'" in r.stderr
    assert "no_such_flag" in r.stderr.rsplit("RuntimeError", 1)[1]  # the parser's reason follows


def test_env_flags_reloaded_on_request(monkeypatch):
    monkeypatch.setenv("IREE_PY_RUNTIME_FLAGS", "--cuda_default_index=0")
    ireert.flags._load_default_flags_from_env()
    monkeypatch.setenv("IREE_PY_RUNTIME_FLAGS", "--barbar")
    with pytest.raises(RuntimeError, match="IREE_PY_RUNTIME_FLAGS.*barbar"):
        ireert.flags._load_default_flags_from_env()


def test_parse_flags_help_prints_flags_and_continues(capfd):
    # IREE's library parsing prints the flags for --help and goes on.
    ireert.flags.parse_flags("--help", "--cuda_default_index=0")
    out = capfd.readouterr().out
    assert "--cuda_default_index=" in out
