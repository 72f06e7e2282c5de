"""Type hints (IREE's iree.runtime.typing)."""

from typing import TYPE_CHECKING, Callable, List

if TYPE_CHECKING:
    from . import HalBufferView

TraceKey = str

# What a HalModuleDebugSink calls for each flow.tensor.trace: the trace's key
# and its tensors.
HalModuleBufferViewTraceCallback = Callable[[TraceKey, List["HalBufferView"]], None]
