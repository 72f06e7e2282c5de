/*
 * gree.h — the C ABI of libgree.so, gree's compiler and runtime.
 *
 * Versioned: GREE_API_VERSION names the ABI this header describes; a library
 * reports the ABI it implements through gree_api_version(). Compatible
 * additions keep the number; anything else bumps it.
 *
 * Conventions
 * - Every call that can fail returns a gree_status_t. NULL means OK; any other
 *   value is an error the caller owns and frees with gree_status_free. Codes
 *   are IREE's (iree_status_code_t), the same numbers.
 * - Handles (gree_driver_t, gree_device_t, …) are opaque. Each out-parameter
 *   says who owns what it returns; every handle has a release call, and
 *   releasing NULL is a no-op.
 * - Strings are UTF-8 and NUL-terminated. "borrowed" strings live as long as
 *   the object named; "caller frees" ones are freed with gree_free.
 * - No call aborts the process: bad input, missing libraries and internal
 *   failures (including Go panics) come back as statuses.
 *
 * The block between GREE_CDEF_BEGIN and GREE_CDEF_END is plain C
 * declarations only: Python's iree_go reads it as its cffi cdef.
 */
#ifndef GREE_H_
#define GREE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GREE_API_VERSION 1

/* libgree's own build defines GREE_TYPES_ONLY to take the types without the
 * function declarations (cgo writes its own prototypes for exported calls). */

/* GREE_CDEF_BEGIN */

/* ---- Types ------------------------------------------------------------- */

typedef enum gree_status_code_e {
  GREE_STATUS_OK = 0,
  GREE_STATUS_CANCELLED = 1,
  GREE_STATUS_UNKNOWN = 2,
  GREE_STATUS_INVALID_ARGUMENT = 3,
  GREE_STATUS_DEADLINE_EXCEEDED = 4,
  GREE_STATUS_NOT_FOUND = 5,
  GREE_STATUS_ALREADY_EXISTS = 6,
  GREE_STATUS_PERMISSION_DENIED = 7,
  GREE_STATUS_RESOURCE_EXHAUSTED = 8,
  GREE_STATUS_FAILED_PRECONDITION = 9,
  GREE_STATUS_ABORTED = 10,
  GREE_STATUS_OUT_OF_RANGE = 11,
  GREE_STATUS_UNIMPLEMENTED = 12,
  GREE_STATUS_INTERNAL = 13,
  GREE_STATUS_UNAVAILABLE = 14,
  GREE_STATUS_DATA_LOSS = 15,
  GREE_STATUS_UNAUTHENTICATED = 16
} gree_status_code_t;

/* NULL is OK; otherwise an error owned by the caller. */
typedef struct gree_status_s* gree_status_t;

typedef struct gree_driver_s* gree_driver_t;

/* One device a driver can create. Strings are borrowed from the object the
 * info came from. device_id is 0 for local devices, ordinal+1 for GPUs. */
typedef struct gree_device_info_t {
  int64_t device_id;
  const char* path;
  const char* name;
} gree_device_info_t;

typedef struct gree_device_info_list_s* gree_device_info_list_t;

typedef struct gree_device_s* gree_device_t;

/* A loaded, verified module (.vmfb). */
typedef struct gree_module_s* gree_module_t;

/* A VM context: modules registered on one device, with their state. */
typedef struct gree_context_s* gree_context_t;

/* A shaped, typed buffer on a device (IREE's hal.buffer_view). */
typedef struct gree_buffer_view_s* gree_buffer_view_t;

/* A list of VM values (arguments and results of calls). */
typedef struct gree_value_list_s* gree_value_list_t;

/* Receives the tensors a program traces (flow.tensor.trace) under their
 * key; views is borrowed for the call. A non-NULL status (the callee's to
 * give) fails the invocation with it. */
typedef gree_status_t (*gree_trace_fn_t)(void* user_data, const char* key,
                                         gree_value_list_t views);

/* The type of one VM value. */
typedef enum gree_value_type_e {
  GREE_VALUE_NULL = 0,
  GREE_VALUE_I32 = 1,
  GREE_VALUE_I64 = 2,
  GREE_VALUE_F32 = 3,
  GREE_VALUE_F64 = 4,
  GREE_VALUE_BUFFER_VIEW = 5,
  GREE_VALUE_LIST = 6,
  GREE_VALUE_BUFFER = 7,
  GREE_VALUE_FENCE = 8
} gree_value_type_t;

/* A range of device memory (IREE's hal.buffer), reference counted: each
 * handle holds one reference. */
typedef struct gree_buffer_s* gree_buffer_t;

/* A timeline semaphore (IREE's hal.semaphore). */
typedef struct gree_semaphore_s* gree_semaphore_t;

/* A set of semaphore timepoints, at most one per semaphore (hal.fence). */
typedef struct gree_fence_s* gree_fence_t;

/* Recorded commands for a device queue (hal.command_buffer). */
typedef struct gree_command_buffer_s* gree_command_buffer_t;

/* A module executable loaded on a device (hal.executable). */
typedef struct gree_executable_s* gree_executable_t;

/* What queue reads and writes move data from and to (hal.file). */
typedef struct gree_file_s* gree_file_t;

/* Memory types, access and usage: IREE's bits (iree_hal_memory_type_t,
 * iree_hal_memory_access_t, iree_hal_buffer_usage_t), same values. */
enum {
  GREE_MEMORY_TYPE_OPTIMAL = 1u << 0,
  GREE_MEMORY_TYPE_HOST_VISIBLE = 1u << 1,
  GREE_MEMORY_TYPE_HOST_COHERENT = 1u << 2,
  GREE_MEMORY_TYPE_HOST_CACHED = 1u << 3,
  GREE_MEMORY_TYPE_HOST_LOCAL = (1u << 1) | (1u << 2) | (1u << 6),
  GREE_MEMORY_TYPE_DEVICE_VISIBLE = 1u << 4,
  GREE_MEMORY_TYPE_DEVICE_LOCAL = (1u << 4) | (1u << 5),
  GREE_MEMORY_ACCESS_READ = 1u << 0,
  GREE_MEMORY_ACCESS_WRITE = 1u << 1,
  GREE_MEMORY_ACCESS_DISCARD = 1u << 2,
  GREE_MEMORY_ACCESS_ALL = 7u,
  GREE_BUFFER_USAGE_TRANSFER_SOURCE = 1u << 0,
  GREE_BUFFER_USAGE_TRANSFER_TARGET = 1u << 1,
  GREE_BUFFER_USAGE_TRANSFER = 3u,
  GREE_BUFFER_USAGE_DISPATCH_STORAGE = (1u << 10) | (1u << 11),
  GREE_BUFFER_USAGE_MAPPING_SCOPED = 1u << 24,
  GREE_BUFFER_USAGE_MAPPING_PERSISTENT = 1u << 25,
  GREE_BUFFER_USAGE_MAPPING = (1u << 24) | (1u << 27),
  GREE_BUFFER_USAGE_DEFAULT = 3u | (1u << 10) | (1u << 11),
  GREE_BUFFER_COMPATIBILITY_ALLOCATABLE = 1u << 0,
  GREE_BUFFER_COMPATIBILITY_IMPORTABLE = 1u << 1,
  GREE_BUFFER_COMPATIBILITY_EXPORTABLE = 1u << 2,
  GREE_BUFFER_COMPATIBILITY_QUEUE_TRANSFER = 1u << 10,
  GREE_BUFFER_COMPATIBILITY_QUEUE_DISPATCH = 1u << 11,
  GREE_COMMAND_BUFFER_MODE_ONE_SHOT = 1u << 0,
  GREE_COMMAND_BUFFER_MODE_ALLOW_INLINE_EXECUTION = 1u << 4,
  GREE_COMMAND_BUFFER_MODE_UNRETAINED = 1u << 6,
  GREE_COMMAND_CATEGORY_TRANSFER = 1u << 0,
  GREE_COMMAND_CATEGORY_DISPATCH = 1u << 1,
  GREE_COMMAND_CATEGORY_ANY = 3u
};

/* The parameters of an allocation. access 0 means all. */
typedef struct gree_buffer_params_t {
  uint32_t type;
  uint32_t access;
  uint32_t usage;
} gree_buffer_params_t;

/* A buffer's metadata. */
typedef struct gree_buffer_info_t {
  uint64_t byte_offset;      /* into its allocation */
  uint64_t byte_length;
  uint64_t allocation_size;
  uint32_t memory_type;
  uint32_t allowed_access;
  uint32_t allowed_usage;
} gree_buffer_info_t;

/* An allocator's byte counts (IREE's iree_hal_allocator_statistics_t). */
typedef struct gree_allocator_statistics_t {
  int64_t host_bytes_peak, host_bytes_allocated, host_bytes_freed;
  int64_t device_bytes_peak, device_bytes_allocated, device_bytes_freed;
} gree_allocator_statistics_t;

/* A range of a buffer, or of binding-table slot `slot` when buffer is NULL
 * (resolved when a reusable command buffer is executed). length < 0 means
 * to the end. */
typedef struct gree_buffer_ref_t {
  gree_buffer_t buffer;
  uint32_t slot;
  uint64_t offset;
  int64_t length;
} gree_buffer_ref_t;

/* Timepoints a queue operation waits on or signals: count semaphores and
 * the value each must reach. Borrowed for the call. */
typedef struct gree_semaphore_list_t {
  size_t count;
  const gree_semaphore_t* semaphores;
  const uint64_t* values;
} gree_semaphore_list_t;

/* Called once when the memory of an imported host allocation is freed. */
typedef void (*gree_release_fn_t)(void* user_data);

/* Cancellation and deadlines of calls (see gree_context_invoke_with_options). */

/* A cancel token. Cancelling is sticky: calls started with a cancelled
 * token fail at once. Safe to use from any thread. */
typedef struct gree_cancel_token_s* gree_cancel_token_t;

/* Flags of gree_invoke_options_t. GREE_INVOKE_INTERRUPTIBLE: the call also
 * stops (CANCELLED) when the process's interrupt is raised while it runs
 * (gree_interrupt_raise, or a SIGINT seen by gree_interrupt_watch_fd);
 * interrupts raised before the call started do not stop it. */
enum { GREE_INVOKE_INTERRUPTIBLE = 1u << 0 };

/* How a call is bounded; all zero bounds nothing. */
typedef struct gree_invoke_options_t {
  /* NULL for none; borrowed for the duration of the call (releasing it
   * meanwhile is allowed: the call then watches a token nobody can cancel). */
  gree_cancel_token_t cancel_token;
  /* Absolute deadline in nanoseconds of CLOCK_MONOTONIC (gree_time_now_ns,
   * Python's time.monotonic_ns()); 0 for none. */
  int64_t deadline_ns;
  uint32_t flags; /* GREE_INVOKE_* */
} gree_invoke_options_t;

/* Host modules' callbacks (see gree_host_module_create). user_data is the
 * value given to gree_host_module_create. Callbacks may run on any thread,
 * several at once when calls run at once on a context; a non-NULL status
 * they return is theirs to give (gree frees it). */

/* Makes the module's state for one context, when gree_context_add_module
 * adds the module to it. *out_state (the callee's) is passed to every call
 * in that context and to free_state; a non-NULL status fails the adding. */
typedef gree_status_t (*gree_host_alloc_state_fn_t)(void* user_data,
                                                    void** out_state);
/* Frees a state when its context is released; no call with it follows. */
typedef void (*gree_host_free_state_fn_t)(void* user_data, void* state);
/* Runs function `function` (its index at creation) with the arguments in
 * args, and pushes its results to results in signature order (i32 or i64
 * for an integer, f32 or f64 for a float, a reference or null for a ref).
 * Both lists are borrowed for the call; values taken from args with
 * gree_value_list_get are the callee's own. A non-NULL status fails the
 * call with its code and message. */
typedef gree_status_t (*gree_host_call_fn_t)(void* user_data, void* state,
                                             size_t function,
                                             gree_value_list_t args,
                                             gree_value_list_t results);
/* Runs once, when the module's last reference is released (after every
 * state was freed); no callback runs afterwards. */
typedef void (*gree_host_destroy_fn_t)(void* user_data);

typedef struct gree_host_module_callbacks_t {
  gree_host_alloc_state_fn_t alloc_state; /* NULL: every state is NULL */
  gree_host_free_state_fn_t free_state;   /* may be NULL */
  gree_host_call_fn_t call;               /* required with functions */
  gree_host_destroy_fn_t destroy;         /* may be NULL */
} gree_host_module_callbacks_t;

/* Parameters (IREE's iree/io; the functions are under "Parameters" below):
 * file handles hold parameter bytes, indexes list named parameters (ranges
 * of file handles, or splats), providers serve an index as a scope. */

/* Host memory or an open file holding parameter bytes. */
typedef struct gree_io_file_handle_s* gree_io_file_handle_t;
/* A list of named parameters. */
typedef struct gree_io_parameter_index_s* gree_io_parameter_index_t;
/* An index served as one scope (#flow.parameter.named<"scope"::"key">). */
typedef struct gree_io_parameter_provider_s* gree_io_parameter_provider_t;

/* Access bits of a file handle. */
typedef enum gree_io_file_access_e {
  GREE_IO_FILE_ACCESS_READ = 1,
  GREE_IO_FILE_ACCESS_WRITE = 2
} gree_io_file_access_t;

/* What a file handle holds. */
typedef enum gree_io_file_handle_type_e {
  GREE_IO_FILE_HANDLE_HOST_ALLOCATION = 1,
  GREE_IO_FILE_HANDLE_FD = 2
} gree_io_file_handle_type_t;

typedef struct gree_io_file_handle_info_t {
  int32_t type;    /* gree_io_file_handle_type_t */
  uint32_t access; /* GREE_IO_FILE_ACCESS_* bits */
  void* data;      /* HOST_ALLOCATION: the bytes (borrowed: valid while the
                    * handle lives; never written unless access has WRITE);
                    * FD: NULL */
  uint64_t size;   /* bytes (an FD's file as it is now) */
  int32_t fd;      /* FD: the handle's own descriptor (borrowed), else -1 */
} gree_io_file_handle_info_t;

/* Where a parameter's bytes are. */
typedef enum gree_io_parameter_storage_e {
  GREE_IO_PARAMETER_STORAGE_FILE = 1,  /* [offset, offset+length) of file */
  GREE_IO_PARAMETER_STORAGE_SPLAT = 2  /* pattern repeated over length */
} gree_io_parameter_storage_t;

typedef struct gree_io_parameter_entry_t {
  char* key;             /* caller frees (gree_free); NUL after key_length */
  size_t key_length;
  uint8_t* metadata;     /* caller frees (gree_free); opaque bytes */
  size_t metadata_length;
  uint64_t length;       /* bytes */
  int32_t storage;       /* gree_io_parameter_storage_t */
  gree_io_file_handle_t file; /* FILE: a new reference, owned by the caller
                               * (gree_io_file_handle_release); SPLAT: NULL */
  uint64_t offset;       /* FILE: the first byte's offset in file */
  uint8_t pattern[16];   /* SPLAT: the pattern */
  size_t pattern_length; /* SPLAT: 1, 2, 4, 8 or 16 */
} gree_io_parameter_entry_t;

#ifndef GREE_TYPES_ONLY

/* ---- Version ------------------------------------------------------------ */

/* The library's version, e.g. "0.1.0". Static storage: never free. */
const char* gree_version(void);

/* The ABI version the library implements (GREE_API_VERSION at its build). */
int32_t gree_api_version(void);

/* ---- Status ------------------------------------------------------------- */

/* The code of status (GREE_STATUS_OK for NULL). */
gree_status_code_t gree_status_code(gree_status_t status);

/* The message of status, formatted as IREE formats one: "<CODE>; <text>".
 * Borrowed: valid until gree_status_free(status). "" for NULL. */
const char* gree_status_message(gree_status_t status);

/* The upper-case name of a code, e.g. "NOT_FOUND". Static storage. */
const char* gree_status_code_string(gree_status_code_t code);

/* Frees status (NULL is a no-op). */
void gree_status_free(gree_status_t status);

/* A new status with code and message (a callback's error for the library;
 * GREE_STATUS_OK gives NULL). Owned by whoever receives it. */
gree_status_t gree_status_allocate(gree_status_code_t code,
                                   const char* message);

/* Frees memory the library returned as "caller frees" (NULL is a no-op). */
void gree_free(void* ptr);

/* ---- Runtime flags ------------------------------------------------------ */

/* Parses runtime flags (--name=value, IREE's syntax, e.g.
 * "--cuda_default_index=1", "--hip_dylib_path=/opt/rocm/lib") into the
 * process-wide flag set. argv holds only flags (no program name); unknown
 * flags are INVALID_ARGUMENT. */
gree_status_t gree_flags_parse(size_t argc, const char* const* argv);

/* ---- Timeline trace (--trace_output) ------------------------------------ */

/* Starts recording a timeline of the devices' work: every dispatch (named
 * after its entry point, with its workgroup count and binding bytes), fill,
 * copy, update, host<->device transfer, queue alloca/dealloca and blocking
 * semaphore wait, per device (process) and queue (thread), with device
 * timestamps where the driver reads them (Vulkan). gree_trace_end writes it
 * to path (borrowed for the call; the file is created now, so a path that
 * cannot be written fails here) as Chrome trace-event JSON, which
 * ui.perfetto.dev and chrome://tracing open. The runtime flag
 * --trace_output=path (gree_flags_parse) starts the same recording.
 * FAILED_PRECONDITION while a trace is already being recorded. */
gree_status_t gree_trace_begin(const char* path);

/* Ends the trace in progress and writes its file; OK, doing nothing, when
 * no trace is being recorded. */
gree_status_t gree_trace_end(void);

/* 1 while a trace is being recorded, else 0. */
int gree_trace_active(void);

/* ---- HAL drivers -------------------------------------------------------- */

/* The number of registered drivers. */
size_t gree_driver_registry_count(void);

/* The name ("cuda") and full name ("NVIDIA CUDA HAL driver (via dylib)") of
 * the driver at index, in registration order. Both are static storage.
 * OUT_OF_RANGE if index >= gree_driver_registry_count(). */
gree_status_t gree_driver_registry_get(size_t index, const char** out_name,
                                       const char** out_full_name);

/* Creates the driver a URI's scheme names ("cuda", "cuda://0" → cuda). A
 * driver whose native library is missing is UNAVAILABLE with a message naming
 * it; an unknown name is NOT_FOUND.
 * out_driver: owned by the caller; release with gree_driver_release. */
gree_status_t gree_driver_create(const char* uri, gree_driver_t* out_driver);

/* Releases driver (NULL is a no-op). Devices created from it stay valid. */
void gree_driver_release(gree_driver_t driver);

/* The driver's name. Borrowed: valid while driver lives. */
const char* gree_driver_name(gree_driver_t driver);

/* Enumerates the driver's devices.
 * out_list: owned by the caller; release with gree_device_info_list_release. */
gree_status_t gree_driver_query_available_devices(
    gree_driver_t driver, gree_device_info_list_t* out_list);

/* The number of entries in list. */
size_t gree_device_info_list_size(gree_device_info_list_t list);

/* Entry index of list. out_info's strings are borrowed from list.
 * OUT_OF_RANGE past the end. */
gree_status_t gree_device_info_list_get(gree_device_info_list_t list,
                                        size_t index,
                                        gree_device_info_t* out_info);

/* Releases list (NULL is a no-op). */
void gree_device_info_list_release(gree_device_info_list_t list);

/* The --dump_devices text of one device (may be empty).
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_driver_dump_device_info(gree_driver_t driver,
                                           int64_t device_id, char** out_text);

/* The text iree-run-module prints for --list_drivers, --list_devices[=d] and
 * --dump_devices[=d]. what is "list_drivers", "list_devices" or
 * "dump_devices"; driver is "" for all drivers.
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_devices_report(const char* what, const char* driver,
                                  char** out_text);

/* ---- HAL devices -------------------------------------------------------- */

/* Creates the device with device_id (from gree_device_info_t).
 * out_device: owned by the caller; release with gree_device_release. */
gree_status_t gree_driver_create_device(gree_driver_t driver, int64_t device_id,
                                        gree_device_t* out_device);

/* Creates the device a URI names on driver: "cuda", "cuda:0", "cuda://0",
 * "cuda://GPU-<uuid>". The URI's scheme must be the driver's name.
 * out_device: owned by the caller; release with gree_device_release. */
gree_status_t gree_driver_create_device_by_uri(gree_driver_t driver,
                                               const char* uri,
                                               gree_device_t* out_device);

/* Creates the driver's default device.
 * out_device: owned by the caller; release with gree_device_release. */
gree_status_t gree_driver_create_default_device(gree_driver_t driver,
                                                gree_device_t* out_device);

/* The device identifier: its driver's name, e.g. "local-task". Borrowed:
 * valid while device lives. */
const char* gree_device_id(gree_device_t device);

/* The device's info. out_info's strings are borrowed from device. */
gree_status_t gree_device_info(gree_device_t device,
                               gree_device_info_t* out_info);

/* Releases device (NULL is a no-op): queued work still waiting is
 * cancelled, running work is waited for, and the device's worker threads
 * stop. Contexts still on it fail their calls (FAILED_PRECONDITION). */
void gree_device_release(gree_device_t device);

/* ---- Allocator specs and device lists ------------------------------------
 * IREE's --device_allocator and create_device(allocators=[...]), and its
 * HAL module over several devices. */

/* Wraps device's allocator in allocator specs, in order (the first wraps
 * the device's own): "caching" pools the memory of released buffers by size
 * class and hands it out again zeroed ("caching:<heap>=<max size>;<capacity>;
 * <free count>,..." bounds it per heap, e.g. "caching:device_local=1gib;
 * 2gib;8"); "debug" puts red zones around every buffer and keeps released
 * ones poisoned in quarantine, reporting overruns and writes after release
 * on stderr (and from gree_allocator_trim as DATA_LOSS). Call it right after
 * creating the device; count 0 changes nothing. An unknown spec is
 * INVALID_ARGUMENT naming the known ones. specs: borrowed for the call. */
gree_status_t gree_device_configure_allocators(gree_device_t device,
                                               const char* const* specs,
                                               size_t count);

/* Creates an empty context on a device list: calls run on devices[0], and a
 * module that places work on several devices resolves its device i to
 * devices[i]; registering a module that names more devices than count is
 * FAILED_PRECONDITION naming both. devices: borrowed for the call; each
 * device must outlive the context. out_context: owned by the caller;
 * release with gree_context_release. */
gree_status_t gree_context_create_with_devices(const gree_device_t* devices,
                                               size_t count,
                                               gree_context_t* out_context);

/* ---- Allocators and buffers ---------------------------------------------
 * A device's allocator makes its buffers. Memory the host can see
 * (HOST_VISIBLE, allocated with a MAPPING usage) can be mapped; device-local
 * memory cannot (PERMISSION_DENIED) and is read or written with
 * gree_device_transfer_*. Using a buffer after its last handle is released,
 * or after a queue dealloca, is FAILED_PRECONDITION. */

/* What the device's allocator can do with buffers of params and size
 * (GREE_BUFFER_COMPATIBILITY_* bits); *out_params (may be NULL) receives the
 * parameters an allocation would actually get. 0 for a bad device. */
uint32_t gree_allocator_query_compatibility(gree_device_t device,
                                            gree_buffer_params_t params,
                                            uint64_t size,
                                            gree_buffer_params_t* out_params);

/* Allocates size zeroed bytes on device.
 * out_buffer: owned by the caller; release with gree_buffer_release. */
gree_status_t gree_allocator_allocate_buffer(gree_device_t device,
                                             gree_buffer_params_t params,
                                             uint64_t size,
                                             gree_buffer_t* out_buffer);

/* Wraps host memory [data, data+size) as a buffer without copying it. The
 * caller keeps it alive and unmoved until release_fn(user_data) is called
 * (once, when the buffer's memory is freed; release_fn may be NULL).
 * UNIMPLEMENTED or INVALID_ARGUMENT where the device cannot use host memory.
 * out_buffer: owned by the caller; release with gree_buffer_release. */
gree_status_t gree_allocator_import_host_buffer(
    gree_device_t device, gree_buffer_params_t params, void* data,
    size_t size, gree_release_fn_t release_fn, void* user_data,
    gree_buffer_t* out_buffer);

/* The device allocator's byte counts. */
gree_status_t gree_allocator_statistics(gree_device_t device,
                                        gree_allocator_statistics_t* out);

/* The statistics as IREE formats them (HOST_LOCAL / DEVICE_LOCAL lines).
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_allocator_format_statistics(gree_device_t device,
                                               char** out_text);

/* Gives cached memory back to the system. */
gree_status_t gree_allocator_trim(gree_device_t device);

/* Releases buffer's handle (NULL or a released handle is a no-op). The
 * memory is freed when no handle, buffer view or queued work uses it. */
void gree_buffer_release(gree_buffer_t buffer);

/* A new handle to the same buffer (another reference).
 * out_buffer: owned by the caller; release with gree_buffer_release. */
gree_status_t gree_buffer_retain(gree_buffer_t buffer, gree_buffer_t* out_buffer);

/* The buffer's metadata. */
gree_status_t gree_buffer_info(gree_buffer_t buffer, gree_buffer_info_t* out);

/* The buffer as IREE's Python repr spells it: "48 bytes (at offset 0 into
 * 48), memory_type=..., allowed_access=..., allowed_usage=...".
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_buffer_format(gree_buffer_t buffer, char** out_text);

/* A new buffer over [offset, offset+length) of buffer (which it retains).
 * out_buffer: owned by the caller; release with gree_buffer_release. */
gree_status_t gree_buffer_subspan(gree_buffer_t buffer, uint64_t offset,
                                  uint64_t length, gree_buffer_t* out_buffer);

/* Maps [offset, offset+length) of a host-visible buffer allocated with a
 * MAPPING usage for access (GREE_MEMORY_ACCESS_*): *out_ptr points at its
 * bytes while the buffer lives (gree's host memory is coherent; unmapping
 * is not needed). Device-local memory is PERMISSION_DENIED. */
gree_status_t gree_buffer_map(gree_buffer_t buffer, uint32_t access,
                              uint64_t offset, uint64_t length,
                              void** out_ptr);

/* Copies size bytes between host memory and buffer at offset, through a
 * mapping where the host can map the buffer, else through a staging buffer
 * and device's queue (waiting for the copy). device may be NULL for
 * mappable buffers. */
gree_status_t gree_device_transfer_h2d(gree_device_t device, const void* src,
                                       gree_buffer_t buffer, uint64_t offset,
                                       size_t size);
gree_status_t gree_device_transfer_d2h(gree_device_t device,
                                       gree_buffer_t buffer, uint64_t offset,
                                       void* dst, size_t size);

/* Creates a buffer view of shape and element type over buffer (retained by
 * the view); the buffer must hold the view's bytes.
 * out_view: owned by the caller; release with gree_buffer_view_release. */
gree_status_t gree_buffer_view_create_from_buffer(gree_buffer_t buffer,
                                                  const int64_t* shape,
                                                  size_t rank,
                                                  uint32_t element_type,
                                                  gree_buffer_view_t* out_view);

/* The buffer behind view.
 * out_buffer: owned by the caller; release with gree_buffer_release. */
gree_status_t gree_buffer_view_buffer(gree_buffer_view_t view,
                                      gree_buffer_t* out_buffer);

/* ---- Semaphores and fences ----------------------------------------------
 * Timeouts are in nanoseconds: negative waits forever, 0 only polls. A wait
 * that times out is DEADLINE_EXCEEDED; a wait on a failed semaphore returns
 * the failure (its code and message). */

/* Creates a semaphore at initial_value.
 * out_semaphore: owned by the caller; release with gree_semaphore_release. */
gree_status_t gree_device_create_semaphore(gree_device_t device,
                                           uint64_t initial_value,
                                           gree_semaphore_t* out_semaphore);

/* Releases semaphore's handle (NULL is a no-op). */
void gree_semaphore_release(gree_semaphore_t semaphore);

/* The semaphore's value; the failure status when it has failed. */
gree_status_t gree_semaphore_query(gree_semaphore_t semaphore,
                                   uint64_t* out_value);

/* Raises the value to value (it must increase: else OUT_OF_RANGE). */
gree_status_t gree_semaphore_signal(gree_semaphore_t semaphore,
                                    uint64_t value);

/* Puts the semaphore in the failed state with code and message. */
gree_status_t gree_semaphore_fail(gree_semaphore_t semaphore,
                                  gree_status_code_t code,
                                  const char* message);

/* Waits until the value reaches value. */
gree_status_t gree_semaphore_wait(gree_semaphore_t semaphore, uint64_t value,
                                  int64_t timeout_ns);

/* Creates an empty fence for up to capacity semaphores, a fence of one
 * timepoint, or the union of count fences (the greatest value per
 * semaphore).
 * out_fence: owned by the caller; release with gree_fence_release. */
gree_status_t gree_fence_create(size_t capacity, gree_fence_t* out_fence);
gree_status_t gree_fence_create_at(gree_semaphore_t semaphore, uint64_t value,
                                   gree_fence_t* out_fence);
gree_status_t gree_fence_join(size_t count, const gree_fence_t* fences,
                              gree_fence_t* out_fence);

/* Releases fence's handle (NULL is a no-op). */
void gree_fence_release(gree_fence_t fence);

/* Adds a timepoint (a semaphore already in the fence keeps the greater
 * value; a full fence is RESOURCE_EXHAUSTED), or every timepoint of from. */
gree_status_t gree_fence_insert(gree_fence_t fence, gree_semaphore_t semaphore,
                                uint64_t value);
gree_status_t gree_fence_extend(gree_fence_t fence, gree_fence_t from);

/* The number of timepoints (0 for a bad fence). */
size_t gree_fence_timepoint_count(gree_fence_t fence);

/* Timepoint index of fence: its semaphore (a new handle the caller
 * releases) and value. OUT_OF_RANGE past the end. */
gree_status_t gree_fence_timepoint(gree_fence_t fence, size_t index,
                                   gree_semaphore_t* out_semaphore,
                                   uint64_t* out_value);

/* Signals every timepoint from the host; fails every semaphore. */
gree_status_t gree_fence_signal(gree_fence_t fence);
gree_status_t gree_fence_fail(gree_fence_t fence, gree_status_code_t code,
                              const char* message);

/* *out_reached is 1 when every timepoint is reached, else 0; a failed
 * semaphore's failure is returned. */
gree_status_t gree_fence_query(gree_fence_t fence, int32_t* out_reached);

/* Waits for every timepoint. */
gree_status_t gree_fence_wait(gree_fence_t fence, int64_t timeout_ns);

/* ---- Executables and command buffers ------------------------------------ */

/* The number of executables a module carries. */
size_t gree_module_executable_count(gree_module_t module);

/* Loads executable index of module on device.
 * out_executable: owned by the caller; release with gree_executable_release. */
gree_status_t gree_executable_create(gree_device_t device, gree_module_t module,
                                     size_t index,
                                     gree_executable_t* out_executable);

/* Releases executable's handle (NULL is a no-op). */
void gree_executable_release(gree_executable_t executable);

/* The number of entry points, and the name of entry point i (borrowed:
 * valid while executable lives; "" past the end). */
size_t gree_executable_entry_count(gree_executable_t executable);
const char* gree_executable_entry_name(gree_executable_t executable,
                                       size_t i);

/* Creates a command buffer for device (mode and categories:
 * GREE_COMMAND_BUFFER_MODE_* and GREE_COMMAND_CATEGORY_* bits; a mode
 * without ONE_SHOT is reusable). binding_capacity is the size of the
 * binding table slot references index. Recording starts with begin.
 * out_command_buffer: owned by the caller; release with
 * gree_command_buffer_release. Queued work keeps what it needs alive. */
gree_status_t gree_command_buffer_create(gree_device_t device, uint32_t mode,
                                         uint32_t categories,
                                         size_t binding_capacity,
                                         gree_command_buffer_t* out_command_buffer);

/* Releases command_buffer's handle (NULL is a no-op). */
void gree_command_buffer_release(gree_command_buffer_t command_buffer);

/* Begin (once), end (once) and an execution barrier. Out-of-order calls are
 * FAILED_PRECONDITION. */
gree_status_t gree_command_buffer_begin(gree_command_buffer_t command_buffer);
gree_status_t gree_command_buffer_end(gree_command_buffer_t command_buffer);
gree_status_t gree_command_buffer_execution_barrier(
    gree_command_buffer_t command_buffer);

/* Fills target with a 1-, 2- or 4-byte pattern. */
gree_status_t gree_command_buffer_fill(gree_command_buffer_t command_buffer,
                                       gree_buffer_ref_t target,
                                       const void* pattern,
                                       size_t pattern_length);

/* Copies size bytes of src (copied now) into target. */
gree_status_t gree_command_buffer_update(gree_command_buffer_t command_buffer,
                                         const void* src, size_t size,
                                         gree_buffer_ref_t target);

/* Copies source into target (lengths must match). */
gree_status_t gree_command_buffer_copy(gree_command_buffer_t command_buffer,
                                       gree_buffer_ref_t source,
                                       gree_buffer_ref_t target);

/* Dispatches entry point entry of executable over a grid of workgroups with
 * push constants and bindings (in binding order). */
gree_status_t gree_command_buffer_dispatch(
    gree_command_buffer_t command_buffer, gree_executable_t executable,
    size_t entry, int64_t workgroups_x, int64_t workgroups_y,
    int64_t workgroups_z, const int64_t* constants, size_t constant_count,
    const gree_buffer_ref_t* bindings, size_t binding_count);

/* ---- Queues -------------------------------------------------------------
 * Each operation waits for wait, runs, then signals signal. The call
 * returns errors in the request; a failure of the work fails the signal
 * semaphores (waiting on them returns it). */

/* Executes command_buffer (NULL: a barrier) with a binding table. */
gree_status_t gree_device_queue_execute(
    gree_device_t device, gree_semaphore_list_t wait,
    gree_semaphore_list_t signal, gree_command_buffer_t command_buffer,
    const gree_buffer_ref_t* bindings, size_t binding_count);

/* Allocates a buffer usable once signal is reached.
 * out_buffer: owned by the caller; release with gree_buffer_release. */
gree_status_t gree_device_queue_alloca(gree_device_t device,
                                       gree_semaphore_list_t wait,
                                       gree_semaphore_list_t signal,
                                       gree_buffer_params_t params,
                                       uint64_t size, gree_buffer_t* out_buffer);

/* Frees buffer's memory once wait is reached (its handles stay valid to
 * release; any other use fails). */
gree_status_t gree_device_queue_dealloca(gree_device_t device,
                                         gree_semaphore_list_t wait,
                                         gree_semaphore_list_t signal,
                                         gree_buffer_t buffer);

/* Fill, update (src copied now), copy and barrier in queue order. */
gree_status_t gree_device_queue_fill(gree_device_t device,
                                     gree_semaphore_list_t wait,
                                     gree_semaphore_list_t signal,
                                     gree_buffer_ref_t target,
                                     const void* pattern, size_t pattern_length);
gree_status_t gree_device_queue_update(gree_device_t device,
                                       gree_semaphore_list_t wait,
                                       gree_semaphore_list_t signal,
                                       const void* src, size_t size,
                                       gree_buffer_ref_t target);
gree_status_t gree_device_queue_copy(gree_device_t device,
                                     gree_semaphore_list_t wait,
                                     gree_semaphore_list_t signal,
                                     gree_buffer_ref_t source,
                                     gree_buffer_ref_t target);
gree_status_t gree_device_queue_barrier(gree_device_t device,
                                        gree_semaphore_list_t wait,
                                        gree_semaphore_list_t signal);

/* Wraps host memory as a file for queue reads and writes (not copied: the
 * caller keeps it alive until the file and the work using it are done).
 * out_file: owned by the caller; release with gree_file_release. */
gree_status_t gree_file_wrap_memory(void* data, size_t size, int32_t readable,
                                    int32_t writable, gree_file_t* out_file);

/* Releases file's handle (NULL is a no-op). */
void gree_file_release(gree_file_t file);

/* Reads target's bytes from file at offset, or writes source's bytes to
 * file at offset, in queue order. */
gree_status_t gree_device_queue_read(gree_device_t device,
                                     gree_semaphore_list_t wait,
                                     gree_semaphore_list_t signal,
                                     gree_file_t file, uint64_t offset,
                                     gree_buffer_ref_t target);
gree_status_t gree_device_queue_write(gree_device_t device,
                                      gree_semaphore_list_t wait,
                                      gree_semaphore_list_t signal,
                                      gree_buffer_ref_t source,
                                      gree_file_t file, uint64_t offset);

/* ---- Profiling ----------------------------------------------------------
 * mode is "queue", "dispatch" or "executable" (NULL: queue); file_path (may
 * be NULL) receives the profile at flush and end. The local devices record
 * dispatch statistics. An unknown mode is INVALID_ARGUMENT. */
gree_status_t gree_device_begin_profiling(gree_device_t device,
                                          const char* mode,
                                          const char* file_path);
gree_status_t gree_device_flush_profiling(gree_device_t device);
gree_status_t gree_device_end_profiling(gree_device_t device);

/* ---- DLPack -------------------------------------------------------------
 * Zero-copy exchange with other frameworks (numpy, PyTorch). managed is a
 * DLManagedTensor* (dlpack.h, version 0.x layout). */

/* Imports a dense, row-major CPU tensor as a buffer view on device without
 * copying; the tensor's deleter is called when the view's memory is freed.
 * On failure the caller still owns managed.
 * out_view: owned by the caller; release with gree_buffer_view_release. */
gree_status_t gree_buffer_view_import_dlpack(gree_device_t device,
                                             void* managed,
                                             gree_buffer_view_t* out_view);

/* Exports view as a DLManagedTensor* (device_type/device_id as DLPack
 * names them: 1, 0 for the CPU) that keeps the view's buffer alive until
 * its deleter is called. The view must be host memory. */
gree_status_t gree_buffer_view_export_dlpack(gree_buffer_view_t view,
                                             int32_t device_type,
                                             int32_t device_id,
                                             void** out_managed);

/* ---- Modules ------------------------------------------------------------ */

/* Loads and completely verifies a module file. The bytes are copied, so
 * data may be freed after the call. A truncated or corrupt file is
 * DATA_LOSS, a file that is not a gree module INVALID_ARGUMENT.
 * out_module: owned by the caller; release with gree_module_release. */
gree_status_t gree_module_load(const uint8_t* data, size_t size,
                               gree_module_t* out_module);

/* Releases module (NULL is a no-op). Contexts it was added to keep it. */
void gree_module_release(gree_module_t module);

/* The module's name ("module" for an unnamed MLIR module). Borrowed: valid
 * while module lives. */
const char* gree_module_name(gree_module_t module);

/* The number of exported functions. */
size_t gree_module_function_count(gree_module_t module);

/* Exported function index: its name, its calling convention (IREE's cconv
 * string, e.g. "0rr_r") and its iree.abi.declaration reflection text ("" if
 * none). All three are borrowed: valid while module lives. Any out pointer
 * may be NULL. OUT_OF_RANGE past the end. */
gree_status_t gree_module_function_info(gree_module_t module, size_t index,
                                        const char** out_name,
                                        const char** out_cconv,
                                        const char** out_declaration);

/* The number of reflection attributes of exported function index (IREE's
 * iree.reflection: "iree.abi.declaration", "iree.abi.model", …), and
 * attribute i's key and value (borrowed: valid while module lives).
 * OUT_OF_RANGE past the end. */
size_t gree_module_function_reflection_count(gree_module_t module,
                                             size_t index);
gree_status_t gree_module_function_reflection(gree_module_t module,
                                              size_t index, size_t i,
                                              const char** out_key,
                                              const char** out_value);

/* ---- Host modules ------------------------------------------------------- */

/* Creates a module whose functions the caller implements with callbacks
 * (IREE's native modules; iree.runtime.PyModuleInterface). It exports
 * function_count functions: function_names[i] with the IREE calling
 * convention calling_conventions[i] ("0ii_i", "0v", "0rr_r": after the
 * version 0, the arguments, then '_' and the results; i/I an i32/i64, f/F
 * an f32/f64, r a reference, v nothing; variadic C…D segments are
 * UNIMPLEMENTED). Added to a context with gree_context_add_module, its
 * functions can be invoked with gree_context_invoke and are imported by
 * modules added after it (an MLIR declaration func.func private
 * @name.function(...)). Arrays and strings are copied. On failure no
 * callback is called.
 * out_module: owned by the caller; release with gree_module_release. Each
 * context the module is added to holds a reference of its own until it is
 * released; callbacks->destroy runs after the last reference goes. */
gree_status_t gree_host_module_create(
    const char* name, size_t function_count,
    const char* const* function_names,
    const char* const* calling_conventions,
    const gree_host_module_callbacks_t* callbacks, void* user_data,
    gree_module_t* out_module);

/* ---- Contexts ----------------------------------------------------------- */

/* Creates an empty context on device (which must outlive it).
 * out_context: owned by the caller; release with gree_context_release. */
gree_status_t gree_context_create(gree_device_t device,
                                  gree_context_t* out_context);

/* Releases context (NULL is a no-op): waits for a call in progress on
 * another thread and for the device work of its calls, then frees the
 * executables prepared for its modules (an llvm-cpu executable's memory file
 * and shared object), their constants and globals and its cached buffers at
 * once. Results already returned stay valid. */
void gree_context_release(gree_context_t context);

/* Registers module in context: its imports are resolved against modules
 * added before it, its executables prepared on the device. A second module
 * with the same name is ALREADY_EXISTS. */
gree_status_t gree_context_add_module(gree_context_t context,
                                      gree_module_t module);

/* Sends what the context's programs trace to fn(user_data, …) instead of
 * printing it to stderr (the default); fn NULL restores the default. fn is
 * called on the invoking thread, during the invocation. */
gree_status_t gree_context_set_trace_sink(gree_context_t context,
                                          gree_trace_fn_t fn, void* user_data);

/* Registers the native "check" module (check-test programs import it). */
gree_status_t gree_context_add_check_module(gree_context_t context);

/* Calls module_name.function with args (NULL for none); the call runs to
 * completion on the context's device. Integer arguments are converted
 * between i32 and i64, and float ones between f32 and f64, to the types the
 * function's signature names (args itself is not changed); any other count,
 * type, shape or element-type mismatch is INVALID_ARGUMENT. With the check
 * module registered, failed expectations make the call FAILED_PRECONDITION
 * with their messages. Calls on one context are serialized.
 * out_results: owned by the caller; release with gree_value_list_release. */
gree_status_t gree_context_invoke(gree_context_t context,
                                  const char* module_name,
                                  const char* function, gree_value_list_t args,
                                  gree_value_list_t* out_results);

/* ---- Cancellation and deadlines --------------------------------------- */

/* A running call can be stopped from another thread: by a cancel token, by
 * the process's interrupt (Ctrl-C) or by a deadline. A call checks at every
 * loop back-edge of its host program and before every dispatch and call, so
 * a call stuck in an endless loop stops within microseconds; a dispatch or a
 * wait already running on the device is not interrupted (the call stops at
 * its next check). A stopped call fails with CANCELLED ("call to m.f
 * cancelled") or DEADLINE_EXCEEDED (naming the deadline) once the device
 * work it recorded has completed; the context stays usable. */

/* out_token: owned by the caller; release with gree_cancel_token_release. */
gree_status_t gree_cancel_token_create(gree_cancel_token_t* out_token);

/* Stops every call watching token at its next check, now and later; a
 * second cancel does nothing. NULL is INVALID_ARGUMENT, a released token
 * FAILED_PRECONDITION. */
gree_status_t gree_cancel_token_cancel(gree_cancel_token_t token);

/* Releases token (NULL is a no-op). */
void gree_cancel_token_release(gree_cancel_token_t token);

/* Nanoseconds of CLOCK_MONOTONIC, the clock of deadline_ns. */
int64_t gree_time_now_ns(void);

/* gree_context_invoke bounded by options (NULL: as gree_context_invoke).
 * A released or foreign cancel token is an error before the call runs.
 * out_results: owned by the caller; release with gree_value_list_release. */
gree_status_t gree_context_invoke_with_options(
    gree_context_t context, const char* module_name, const char* function,
    gree_value_list_t args, const gree_invoke_options_t* options,
    gree_value_list_t* out_results);

/* Raises the process's interrupt: every GREE_INVOKE_INTERRUPTIBLE call
 * running stops with CANCELLED. Safe from any thread (not from a signal
 * handler: see gree_interrupt_watch_fd). */
void gree_interrupt_raise(void);

/* Watches read_fd (the read end of a pipe whose write end a signal handler
 * writes signal numbers to, one byte each, as Python's
 * signal.set_wakeup_fd does) on a thread of libgree's: each SIGINT byte
 * raises the interrupt. Every byte read is also written to forward_fd
 * (non-blocking, dropped when full) unless it is negative, so that a wakeup
 * fd the new one replaced (an asyncio loop's) still learns of signals.
 * read_fd: owned by libgree from then on (closed when its writer closes,
 * and on error); forward_fd: libgree writes to a duplicate of its own, so
 * the caller may close forward_fd at any time. */
gree_status_t gree_interrupt_watch_fd(int read_fd, int forward_fd);

/* ---- Buffer views ------------------------------------------------------- */

/* Creates a buffer view on device holding a copy of data (data_size must be
 * the dense size of shape × element type). element_type is IREE's
 * element-type word (e.g. 0x21000020 for f32). Sub-byte types (i4, ui2,
 * f4E2M1FN = 0x29000004, …) take one element per byte, unpacked: an
 * integer sign-extended through its byte, an f4 code in the low four bits
 * with the high bits zero (the bytes gree's kernels read).
 * out_view: owned by the caller; release with gree_buffer_view_release. */
gree_status_t gree_buffer_view_create(gree_device_t device,
                                      const int64_t* shape, size_t rank,
                                      uint32_t element_type, const void* data,
                                      size_t data_size,
                                      gree_buffer_view_t* out_view);

/* Releases view (NULL is a no-op). */
void gree_buffer_view_release(gree_buffer_view_t view);

/* The rank, dimension i (0 past the rank), element type and byte length. */
size_t gree_buffer_view_rank(gree_buffer_view_t view);
int64_t gree_buffer_view_dim(gree_buffer_view_t view, size_t i);
uint32_t gree_buffer_view_element_type(gree_buffer_view_t view);
size_t gree_buffer_view_byte_length(gree_buffer_view_t view);

/* Copies the view's contents to host memory dst (size must be at least the
 * byte length). */
gree_status_t gree_buffer_view_read(gree_buffer_view_t view, void* dst,
                                    size_t size);

/* The view's contents as IREE's tools print them ("2x2xf32=[1 2][3 4]"),
 * at most max_elements elements (negative: all).
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_buffer_view_format(gree_buffer_view_t view,
                                      int64_t max_elements, char** out_text);

/* ---- Value lists -------------------------------------------------------- */

/* Creates an empty list.
 * out_list: owned by the caller; release with gree_value_list_release. */
gree_status_t gree_value_list_create(gree_value_list_t* out_list);

/* Releases list (NULL is a no-op); the values it holds are released too. */
void gree_value_list_release(gree_value_list_t list);

/* The number of values in list. */
size_t gree_value_list_size(gree_value_list_t list);

/* Appends a value. The list holds a reference to each buffer, buffer view
 * and fence it holds (the caller keeps its own handle); push_list appends a
 * copy of sublist's entries as a nested list. */
gree_status_t gree_value_list_push_null(gree_value_list_t list);
gree_status_t gree_value_list_push_i32(gree_value_list_t list, int32_t v);
gree_status_t gree_value_list_push_i64(gree_value_list_t list, int64_t v);
gree_status_t gree_value_list_push_f32(gree_value_list_t list, float v);
gree_status_t gree_value_list_push_f64(gree_value_list_t list, double v);
gree_status_t gree_value_list_push_buffer_view(gree_value_list_t list,
                                               gree_buffer_view_t view);
gree_status_t gree_value_list_push_list(gree_value_list_t list,
                                        gree_value_list_t sublist);
gree_status_t gree_value_list_push_buffer(gree_value_list_t list,
                                          gree_buffer_t buffer);
gree_status_t gree_value_list_push_fence(gree_value_list_t list,
                                         gree_fence_t fence);

/* Entry index as a buffer or a fence: a new handle the caller releases.
 * INVALID_ARGUMENT when the entry is of another type. */
gree_status_t gree_value_list_get_buffer(gree_value_list_t list, size_t index,
                                         gree_buffer_t* out_buffer);
gree_status_t gree_value_list_get_fence(gree_value_list_t list, size_t index,
                                        gree_fence_t* out_fence);

/* Entry index: its type; the integer in *out_i (i32/i64), the float in
 * *out_f (f32/f64), a new reference to a buffer view in *out_view (caller
 * releases) or a new list in *out_list (caller releases). Out pointers that
 * do not apply may be NULL. OUT_OF_RANGE past the end. */
gree_status_t gree_value_list_get(gree_value_list_t list, size_t index,
                                  gree_value_type_t* out_type, int64_t* out_i,
                                  double* out_f, gree_buffer_view_t* out_view,
                                  gree_value_list_t* out_list);

/* ---- Parameters --------------------------------------------------------- */

/* Parameters as IREE's iree/io API and io_parameters module have them
 * (iree.runtime's FileHandle, ParameterIndex, ParameterProvider and
 * create_io_parameters_module). Handles are reference counted: an index
 * holds its entries' file handles, a provider its index, a module its
 * providers, so each may be released as soon as it was passed on. */

/* Wraps host memory [data, data+size) without copying it. The caller keeps
 * it valid and unmoved until release_fn(user_data) is called (once, on the
 * thread that drops the last reference: a release of the handle, or of the
 * index, provider or module holding it; release_fn may be NULL). access:
 * GREE_IO_FILE_ACCESS_* bits.
 * out_handle: owned by the caller; release with gree_io_file_handle_release. */
gree_status_t gree_io_file_handle_wrap_memory(void* data, size_t size,
                                              uint32_t access,
                                              gree_release_fn_t release_fn,
                                              void* user_data,
                                              gree_io_file_handle_t* out_handle);

/* Wraps a duplicate of the open descriptor fd (the caller keeps and closes
 * its own). Parameters are read from it with pread.
 * out_handle: owned by the caller; release with gree_io_file_handle_release. */
gree_status_t gree_io_file_handle_open_fd(int fd, uint32_t access,
                                          gree_io_file_handle_t* out_handle);

/* Opens the file at path as read-only host memory: mapped (mmap != 0) or
 * read into memory now. A missing file is NOT_FOUND naming it.
 * out_handle: owned by the caller; release with gree_io_file_handle_release. */
gree_status_t gree_io_file_handle_open(const char* path, int mmap,
                                       gree_io_file_handle_t* out_handle);

/* Releases handle (NULL is a no-op); indexes using it keep it. */
void gree_io_file_handle_release(gree_io_file_handle_t handle);

/* What handle holds (see gree_io_file_handle_info_t for ownership). */
gree_status_t gree_io_file_handle_query(gree_io_file_handle_t handle,
                                        gree_io_file_handle_info_t* out_info);

/* Creates an empty index.
 * out_index: owned by the caller; release with gree_io_parameter_index_release. */
gree_status_t gree_io_parameter_index_create(gree_io_parameter_index_t* out_index);

/* Releases index (NULL is a no-op); providers using it keep it. */
void gree_io_parameter_index_release(gree_io_parameter_index_t index);

/* The number of entries (0 for an invalid index). */
size_t gree_io_parameter_index_count(gree_io_parameter_index_t index);

/* Makes room for capacity entries in all. */
gree_status_t gree_io_parameter_index_reserve(gree_io_parameter_index_t index,
                                              size_t capacity);

/* Adds a splat entry: length bytes repeating pattern (1, 2, 4, 8 or 16
 * bytes dividing length; else INVALID_ARGUMENT). key, pattern and metadata
 * (opaque; may be NULL when metadata_length is 0) are copied. */
gree_status_t gree_io_parameter_index_add_splat(
    gree_io_parameter_index_t index, const char* key, size_t key_length,
    const void* pattern, size_t pattern_length, uint64_t length,
    const void* metadata, size_t metadata_length);

/* Adds an entry whose bytes are [offset, offset+length) of file, which must
 * lie within it (else OUT_OF_RANGE). The index takes its own reference to
 * file; key and metadata are copied. */
gree_status_t gree_io_parameter_index_add_file(
    gree_io_parameter_index_t index, const char* key, size_t key_length,
    gree_io_file_handle_t file, uint64_t offset, uint64_t length,
    const void* metadata, size_t metadata_length);

/* Parses the parameter file file holds (format "irpa", "safetensors" or
 * "gguf"; NULL or "" detects it from its first bytes or its name) and adds
 * its entries, as ranges of file. A malformed or truncated file adds
 * nothing and is an error (DATA_LOSS for a truncated one) naming the file
 * and the entry. */
gree_status_t gree_io_parameter_index_load(gree_io_parameter_index_t index,
                                           gree_io_file_handle_t file,
                                           const char* format);

/* Entry i (see gree_io_parameter_entry_t for what the caller owns).
 * OUT_OF_RANGE past the end. */
gree_status_t gree_io_parameter_index_get(gree_io_parameter_index_t index,
                                          size_t i,
                                          gree_io_parameter_entry_t* out_entry);

/* The index as IREE's iree_io_parameter_index_dump prints it under scope
 * (NULL or "" is the global scope).
 * out_text: owned by the caller; free with gree_free. */
gree_status_t gree_io_parameter_index_dump(gree_io_parameter_index_t index,
                                           const char* scope, char** out_text);

/* Writes the index as an IREE parameter archive (.irpa: splats stay
 * splats, file entries are copied) at byte file_offset of the file at path,
 * created or replaced. When target_index is not NULL, the entries of the
 * written archive (ranges of the new file, mapped) are added to it. Writing
 * over a file an entry reads from is INVALID_ARGUMENT. */
gree_status_t gree_io_parameter_index_write_archive(
    gree_io_parameter_index_t index, const char* path, uint64_t file_offset,
    gree_io_parameter_index_t target_index);

/* Creates a provider serving index as scope (NULL or "" is the global
 * scope); entries added to index later are served too.
 * out_provider: owned by the caller; release with
 * gree_io_parameter_provider_release. */
gree_status_t gree_io_parameter_provider_create(
    gree_io_parameter_index_t index, const char* scope,
    gree_io_parameter_provider_t* out_provider);

/* Releases provider (NULL is a no-op); modules using it keep it. */
void gree_io_parameter_provider_release(gree_io_parameter_provider_t provider);

/* Creates IREE's "io_parameters" module over providers[0..count). Added to
 * a context with gree_context_add_module, it makes the modules added after
 * it load their parameters (#flow.parameter.named<"scope"::"key"> globals)
 * from the first provider of each scope, copied once per context into
 * memory the runtime owns, instead of from the --parameters flags' files.
 * A missing scope or key is NOT_FOUND when such a module is added.
 * out_module: owned by the caller; release with gree_module_release. */
gree_status_t gree_io_parameters_module_create(
    size_t count, const gree_io_parameter_provider_t* providers,
    gree_module_t* out_module);

/* ---- Tools -------------------------------------------------------------- */

/* Runs a command-line tool in process, as if exec'd with argv (argv[0] is
 * the program name; tool picks the tool: "iree-compile"). stdin_data is the
 * tool's standard input (may be NULL with stdin_size 0).
 * out_stdout / out_stderr: owned by the caller; free with gree_free (they are
 * NUL-terminated past their sizes for convenience). out_exit_code: the
 * tool's exit code. The status is an error only when the tool could not be
 * run at all (unknown tool); a tool's own failure is its exit code. */
gree_status_t gree_tool_run(const char* tool, size_t argc,
                            const char* const* argv, const uint8_t* stdin_data,
                            size_t stdin_size, uint8_t** out_stdout,
                            size_t* out_stdout_size, uint8_t** out_stderr,
                            size_t* out_stderr_size, int32_t* out_exit_code);

#endif  /* GREE_TYPES_ONLY */

/* GREE_CDEF_END */

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* GREE_H_ */
