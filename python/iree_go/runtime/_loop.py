"""HalDeviceLoopBridge: semaphore timepoints as asyncio futures (IREE's
HalDeviceLoopBridge)."""

import threading

from ._hal import HalSemaphore

__all__ = ["HalDeviceLoopBridge"]


class HalDeviceLoopBridge:
    """Resolves asyncio futures on an event loop when semaphores reach
    values. Each pending wait is a daemon thread blocked in the semaphore's
    wait (gree's waits release the GIL); its result, or the semaphore's
    failure, is handed to the loop's thread."""

    def __init__(self, device, loop):
        self._device = device
        self._loop = loop
        self._lock = threading.Lock()
        self._stopped = False
        self._waiters = set()

    def on_semaphore(self, semaphore, payload, value):
        """A future that resolves to value once semaphore reaches payload (or
        fails with the semaphore's failure)."""
        if not isinstance(semaphore, HalSemaphore):
            raise TypeError(f"on_semaphore takes a HalSemaphore, got {type(semaphore).__name__}")
        fut = self._loop.create_future()
        with self._lock:
            if self._stopped:
                raise RuntimeError("FAILED_PRECONDITION; the HalDeviceLoopBridge was stopped")
            th = threading.Thread(target=self._wait, args=(semaphore, int(payload), value, fut), daemon=True)
            self._waiters.add(th)
        th.start()
        return fut

    def _wait(self, semaphore, payload, value, fut):
        try:
            # Poll in slices so that stop() is noticed.
            while not semaphore.wait(payload, timeout=50_000_000):
                if self._stopped:
                    self._resolve(fut, exc=RuntimeError("CANCELLED; the HalDeviceLoopBridge was stopped"))
                    return
            self._resolve(fut, result=value)
        except BaseException as e:  # noqa: BLE001 - handed to the future
            self._resolve(fut, exc=e)
        finally:
            with self._lock:
                self._waiters.discard(threading.current_thread())

    def _resolve(self, fut, result=None, exc=None):
        def set_on_loop():
            if fut.done():
                return
            if exc is not None:
                fut.set_exception(exc)
            else:
                fut.set_result(result)

        try:
            self._loop.call_soon_threadsafe(set_on_loop)
        except RuntimeError:  # the loop is closed
            pass

    def stop(self):
        """Stops waiting: pending futures fail with CANCELLED."""
        with self._lock:
            self._stopped = True
            waiters = list(self._waiters)
        for th in waiters:
            th.join(timeout=1)
