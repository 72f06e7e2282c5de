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
