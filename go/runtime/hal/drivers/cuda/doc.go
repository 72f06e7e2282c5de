// Package cuda is the "cuda" HAL driver: NVIDIA GPUs through the CUDA
// driver API, loaded at run time from libcuda.so.1 (the NVIDIA driver ships
// it; no CUDA toolkit is needed), as IREE's runtime/src/iree/hal/drivers/cuda
// does. Setting GREE_LIBCUDA to a library's path loads that library
// instead (LibraryEnv): the fake libcuda of package cudatest (whose
// kernels run on the PTX simulator) for end-to-end tests of the tools on
// machines without a GPU, or a particular driver's library.
//
// Devices are numbered as in IREE: DeviceID is the CUdevice + 1, the path is
// the GPU UUID as nvidia-smi -L prints it ("GPU-xxxxxxxx-xxxx-…") and the
// name is cuDeviceGetName's. A URI path may also be an ordinal ("cuda://1");
// the empty path is the default device (--cuda_default_index, or the MPI
// rank from PMI_RANK / OMPI_COMM_WORLD_LOCAL_RANK when
// --cuda_default_index_from_mpi is set).
//
// DumpDeviceInfo writes the same --dump_devices text as IREE's
// cuda_driver.c (REFERENCE §5 "CUDA dump"), from cuDeviceGetAttribute and
// cuDriverGetVersion.
//
// Creating a device retains its primary context and reads the limits work
// is checked against (compute capability, block and grid dimensions,
// shared memory per block, memory pool support). A CUDA context is current
// per OS thread, so the device runs every call that needs it on one of two
// goroutines locked to their OS threads with the context current
// (thread.go): the worker, which makes every call that allocates, frees,
// loads or enqueues (and so serializes the device's one non-blocking
// CUstream), and the completer, which waits for submissions.
//
// The devices execute (hal.Device):
//
//   - Memory (memory.go): device-local buffers are cuMemAlloc_v2 memory
//     the host cannot map; the host reaches them through staging copies on
//     the queue (hal.ReadBuffer, WriteBuffer, QueueRead), as on a discrete
//     GPU under Vulkan. Host-visible buffers are pinned host memory
//     (cuMemHostAlloc, portable and mapped) that copies and kernels address
//     through unified addressing. New memory is zeroed (cuMemsetD8Async on
//     the stream, before any later work). Running out of memory is
//     RESOURCE_EXHAUSTED, saying how much is free, and the device goes on.
//     With --cuda_async_allocations (the default) on a device with memory
//     pools, QueueAlloca allocates with cuMemAllocAsync on the stream in
//     queue order, and such memory is freed with cuMemFreeAsync after the
//     work enqueued before; otherwise QueueAlloca allocates at once.
//     Memory is freed when hal frees the allocation (its last reference,
//     or QueueDealloca) and no submission in flight holds it. Small pinned
//     blocks (host-visible buffers, staging) and status-word blocks are
//     kept for reuse (pool.go) until Trim or the device goes.
//   - Semaphores: host timelines (hal.HostSemaphore); every wait is
//     resolved on the host.
//   - The queue (queue.go, submit.go, stream.go, hostcall.go):
//     QueueExecute checks and resolves the command buffer against the
//     binding table (errors in the request, such as a missing entry point,
//     a grid past the device's limits or wrong binding counts, are
//     returned) and holds its buffers and executables; once its wait list
//     is reached (at once, or on a goroutine, so that later independent
//     work is not held up) the worker enqueues it on the stream: fills as
//     cuMemsetD8/D16/D32Async (a target not aligned to the pattern through
//     a staged copy), updates as copies from a pinned staging block, copies
//     as cuMemcpyAsync, dispatches as cuLaunchKernel with the kernel ABI's
//     parameters (an empty grid launches nothing), then a cuEventRecord.
//     Dispatches of entries that report run-time errors get a zeroed
//     status word each, copied back to the staging block after the work.
//     The completer takes submissions in stream order, waits for each
//     event (cuEventSynchronize), turns the first nonzero status word into
//     the submission's error (OUT_OF_RANGE naming the entry point and the
//     failed check, cuda.Describe), frees the submission's CUDA objects,
//     releases what it held, and signals or fails the signal list.
//     QueueHostCall runs on the host once its waits are reached. A kernel
//     that faults on a GPU (an illegal address) fails the submission at
//     cuEventSynchronize; CUDA then refuses every later call on the
//     context, so the device's later work fails too.
//   - Executables (executable.go): cuda-nvptx-fb (go/schemas/cuda). The
//     variant of the highest architecture the device runs is loaded
//     (cuda.Executable.Best; none is FAILED_PRECONDITION naming the
//     executable's architectures and the device's) with
//     cuModuleLoadDataEx, whose JIT error and info logs go into the error
//     when it fails; each entry point's CUfunction is resolved and its
//     block size and shared memory checked against the device and the
//     function. The module is unloaded when the executable is closed and
//     no submission uses it, or when the device closes.
//
// Close refuses new work (FAILED_PRECONDITION naming the device), cancels
// the work still waiting for semaphores (CANCELLED), waits for the stream
// and unloads every module; buffers may outlive their device, and the
// stream, the worker and the primary context are released with the last
// of them. Every CUDA object is freed by a release or a close, none by the
// garbage collector (except the memory of buffers never released).
//
// Flags: with --cuda_use_streams=false a submission's commands are
// captured from the stream into a CUDA graph (cuStreamBeginCapture_v2,
// thread-local mode), instantiated and launched on the stream; the
// instance is destroyed when the submission completes (a graph per
// submission, not yet one per reusable command buffer updated with each
// binding table as IREE's graph command buffers are). A libcuda without
// the graph calls (CUDA 11.4) makes that flag UNAVAILABLE when a device
// is created. --cuda_async_allocations as above;
// --cuda_allow_inline_execution and --cuda_tracing are accepted and change
// nothing yet.
//
// While a --trace_output timeline is recorded (package timeline), each
// submission is traced as the host saw it, enqueue to completion, with its
// dispatches and bytes, and each of its commands is timed by the device
// with CUDA timing events read by cuEventElapsedTime (on streams; graphs
// are host-timed only) (trace.go).
package cuda
