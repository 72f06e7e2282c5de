import os
import shutil
import sys

import pytest


@pytest.fixture(scope="session")
def bin_dir():
    """The directory holding the installed console scripts."""
    return os.path.dirname(sys.executable)


def driver_available(name):
    """(True, "") if the driver can be created, else (False, reason)."""
    import iree_go.runtime as ireert

    try:
        ireert.get_driver(name)
        return True, ""
    except Exception as e:  # noqa: BLE001 - the reason is the message
        return False, str(e)


def vulkan_unavailable():
    """"" when the vulkan driver lists a device, else why not (for a skip)."""
    import iree_go.runtime as ireert

    try:
        if ireert.get_driver("vulkan").query_available_devices():
            return ""
        return "the vulkan driver lists no device"
    except Exception as e:  # noqa: BLE001 - the reason is the message
        return f"no Vulkan (apt-get install libvulkan1 mesa-vulkan-drivers for lavapipe): {e}"


def build_c_example(name, out_dir):
    """Compiles examples/c/<name>.c against the installed libgree.so (with the
    strictest warnings) into out_dir; skips without a C compiler."""
    import subprocess

    from iree_go import _capi

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler on PATH")
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    lib_dir = os.path.dirname(_capi.library_path)
    header_dir = lib_dir if os.path.exists(os.path.join(lib_dir, "gree.h")) else os.path.join(repo, "include")
    exe = os.path.join(str(out_dir), name)
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", header_dir,
                    os.path.join(repo, "examples", "c", name + ".c"),
                    "-L", lib_dir, "-lgree", "-Wl,-rpath," + lib_dir, "-o", exe], check=True)
    return exe
