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

/* The type of one VM value. */
typedef enum gree_value_type_e {
  GREE_VALUE_NULL = 0,
  GREE_VALUE_I32 = 1,
  GREE_VALUE_I64 = 2,
  GREE_VALUE_F32 = 3,
  GREE_VALUE_F64 = 4,
  GREE_VALUE_BUFFER_VIEW = 5,
  GREE_VALUE_LIST = 6
} gree_value_type_t;

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

/* Frees memory the library returned as "caller frees" (NULL is a no-op). */
void gree_free(void* ptr);

/* ---- Runtime flags ------------------------------------------------------ */

/* Parses runtime flags (--name=value, IREE's syntax, e.g.
 * "--cuda_default_index=1", "--hip_dylib_path=/opt/rocm/lib") into the
 * process-wide flag set. argv holds only flags (no program name); unknown
 * flags are INVALID_ARGUMENT. */
gree_status_t gree_flags_parse(size_t argc, const char* const* argv);

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

/* Releases device (NULL is a no-op). */
void gree_device_release(gree_device_t device);

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

/* ---- Contexts ----------------------------------------------------------- */

/* Creates an empty context on device (which must outlive it).
 * out_context: owned by the caller; release with gree_context_release. */
gree_status_t gree_context_create(gree_device_t device,
                                  gree_context_t* out_context);

/* Releases context (NULL is a no-op). */
void gree_context_release(gree_context_t context);

/* Registers module in context: its imports are resolved against modules
 * added before it, its executables prepared on the device. A second module
 * with the same name is ALREADY_EXISTS. */
gree_status_t gree_context_add_module(gree_context_t context,
                                      gree_module_t module);

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

/* ---- Buffer views ------------------------------------------------------- */

/* Creates a buffer view on device holding a copy of data (data_size must be
 * the dense size of shape × element type). element_type is IREE's
 * element-type word (e.g. 0x21000020 for f32).
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

/* Appends a value. push_buffer_view takes a new reference (the caller keeps
 * its own); push_list appends a copy of sublist's entries as a nested list. */
gree_status_t gree_value_list_push_null(gree_value_list_t list);
gree_status_t gree_value_list_push_i32(gree_value_list_t list, int32_t v);
gree_status_t gree_value_list_push_i64(gree_value_list_t list, int64_t v);
gree_status_t gree_value_list_push_f32(gree_value_list_t list, float v);
gree_status_t gree_value_list_push_f64(gree_value_list_t list, double v);
gree_status_t gree_value_list_push_buffer_view(gree_value_list_t list,
                                               gree_buffer_view_t view);
gree_status_t gree_value_list_push_list(gree_value_list_t list,
                                        gree_value_list_t sublist);

/* Entry index: its type; the integer in *out_i (i32/i64), the float in
 * *out_f (f32/f64), a new reference to a buffer view in *out_view (caller
 * releases) or a new list in *out_list (caller releases). Out pointers that
 * do not apply may be NULL. OUT_OF_RANGE past the end. */
gree_status_t gree_value_list_get(gree_value_list_t list, size_t index,
                                  gree_value_type_t* out_type, int64_t* out_i,
                                  double* out_f, gree_buffer_view_t* out_view,
                                  gree_value_list_t* out_list);

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
