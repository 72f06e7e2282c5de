package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/status"
)

func TestConformance(t *testing.T) { cts.Run(t, Factory) }

func TestMissingLibraryIsUnavailableAndNamesLibcuda(t *testing.T) {
	spec := libcuda
	spec.Candidates = []string{"/nonexistent/gree-test/libcuda.so.1"}
	_, err := create(spec)
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	for _, want := range []string{"libcuda.so.1", "/nonexistent/gree-test/libcuda.so.1", "install the NVIDIA driver", "no CUDA toolkit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestFactoryErrorWhenUnavailable(t *testing.T) {
	d, err := Factory.Create()
	if err == nil {
		d.Close()
		t.Skip("libcuda loaded and cuInit succeeded here")
	}
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	// Either libcuda is missing (the error names it) or cuInit failed (the
	// error names the CUresult).
	if !strings.Contains(err.Error(), "libcuda.so.1") && !strings.Contains(err.Error(), "cuInit failed: CUDA_ERROR_") {
		t.Errorf("error names neither libcuda.so.1 nor a CUresult: %v", err)
	}
}

func TestInitErrorNamesResultAndFix(t *testing.T) {
	err := initError(cudaErrorNoDevice, "CUDA_ERROR_NO_DEVICE")
	if status.CodeOf(err) != status.Unavailable {
		t.Errorf("code = %v, want UNAVAILABLE", status.CodeOf(err))
	}
	for _, want := range []string{"cuInit failed: CUDA_ERROR_NO_DEVICE (100)", "nvidia-smi", "CUDA_VISIBLE_DEVICES"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := initError(cudaErrorInsufficientDriver, "CUDA_ERROR_INSUFFICIENT_DRIVER"); !strings.Contains(err.Error(), "does not match the NVIDIA kernel driver") {
		t.Errorf("insufficient driver: %v", err)
	}
}

func TestCheckNamesCallAndResult(t *testing.T) {
	a := &api{} // no cuGetErrorName bound: the number is the name
	if err := a.check(cudaSuccess, "cuX"); err != nil {
		t.Errorf("success: %v", err)
	}
	err := a.check(cudaErrorInvalidDevice, "cuDeviceGet")
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "cuDeviceGet failed: unknown CUresult (101)") {
		t.Errorf("err = %v", err)
	}
	if got := resultCode(cudaErrorOutOfMemory); got != status.ResourceExhausted {
		t.Errorf("OUT_OF_MEMORY → %v", got)
	}
	if got := resultCode(999); got != status.Internal {
		t.Errorf("UNKNOWN → %v", got)
	}
}

// fakeSource returns attribute n as values[n] (attributes not in the table
// fail, so a dump asking for an unexpected attribute fails the test).
type fakeSource struct {
	values  map[int32]int32
	version int32
}

func (f *fakeSource) attribute(attr int32) (int32, error) {
	v, ok := f.values[attr]
	if !ok {
		return 0, status.Errorf(status.InvalidArgument, "unexpected attribute %d", attr)
	}
	return v, nil
}

func (f *fakeSource) driverVersion() (int32, error) { return f.version, nil }

// h100 is an H100 SXM's attribute table (driver 550, CUDA 12.4).
func h100() *fakeSource {
	return &fakeSource{version: 12040, values: map[int32]int32{
		75: 9, 76: 0,
		2: 1024, 3: 1024, 4: 64,
		5: 2147483647, 6: 65535, 7: 65535,
		1: 1024, 12: 65536, 8: 49152,
		39: 2048, 106: 32, 82: 65536, 81: 233472,
		18: 0, 41: 1, 83: 1, 19: 1, 88: 0, 89: 1, 115: 1, 38: 52428800,
		122: 1, 114: 1, 126: 4,
		16: 132, 13: 1980000, 10: 32, 17: 0,
	}}
}

const h100Dump = `
- gpu-compute-capability: 9.0
- driver-max-cuda-version: 12.4

- launch-max-block-dims: (1024, 1024, 64)
- launch-max-grid-dims: (2147483647, 65535, 65535)

- block-max-thread-count: 1024
- block-max-32-bit-register-count: 65536
- block-max-shared-memory: 49152 bytes

- multiprocessor-max-thread-count: 2048
- multiprocessor-max-block-count: 32
- multiprocessor-max-32-bit-register-count: 65536
- multiprocessor-max-shared-memory: 233472 bytes

- memory-is-integrated-memory: 0
- memory-has-unified-address-space: 1
- memory-supports-managed-memory: 1
- memory-can-map-host-memory-to-device: 1
- memory-supports-pageable-memory-access-from-device: 0
- memory-supports-concurrent-managed-access: 1
- memory-supports-memory-pools: 1
- memory-l2-cache-size: 52428800 bytes

- sync-supports-64-bit-stream-mem-ops: 1
- sync-supports-timeline-semaphore-interop: 1
- sync-mem-domain-count: 4

- gpu-multiprocessor-count: 132
- gpu-clock-rate: 1980000 kHz
- gpu-warp-size: 32
- kernel-has-execution-timeout: 0
`

func TestDumpMatchesIREELayout(t *testing.T) {
	got, err := formatDump(h100())
	if err != nil {
		t.Fatal(err)
	}
	if got != h100Dump {
		t.Errorf("dump mismatch\ngot:\n%q\nwant:\n%q", got, h100Dump)
	}
}

func TestDumpFailsOnAttributeError(t *testing.T) {
	src := h100()
	delete(src.values, 126)
	_, err := formatDump(src)
	if err == nil || !strings.Contains(err.Error(), "unexpected attribute 126") {
		t.Errorf("err = %v, want the failing attribute", err)
	}
}

type failingVersion struct{ fakeSource }

func (f *failingVersion) driverVersion() (int32, error) { return 0, errors.New("no version") }

func TestDumpFailsOnVersionError(t *testing.T) {
	if _, err := formatDump(&failingVersion{*h100()}); err == nil {
		t.Error("want an error")
	}
}

func TestDefaultIndexFromMPI(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := defaultIndex(3, true, getenv); got != 3 {
		t.Errorf("no MPI vars: %d, want the flag's 3", got)
	}
	env["OMPI_COMM_WORLD_LOCAL_RANK"] = "2"
	if got := defaultIndex(3, true, getenv); got != 2 {
		t.Errorf("OMPI rank: %d, want 2", got)
	}
	env["PMI_RANK"] = "1"
	if got := defaultIndex(3, true, getenv); got != 1 {
		t.Errorf("PMI_RANK first: %d, want 1", got)
	}
	if got := defaultIndex(3, false, getenv); got != 3 {
		t.Errorf("from_mpi off: %d, want 3", got)
	}
	env["PMI_RANK"] = "x"
	if got := defaultIndex(3, true, getenv); got != 2 {
		t.Errorf("bad PMI_RANK falls through: %d, want 2", got)
	}
}

func TestFlagsRegisteredWithIREEDefaults(t *testing.T) {
	help := flags.Default.Help()
	for _, want := range []string{
		"--cuda_use_streams=true\n", "--cuda_allow_inline_execution=false\n",
		"--cuda_async_allocations=true\n", "--cuda_tracing=2\n",
		"--cuda_default_index=0\n", "--cuda_default_index_from_mpi=true\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("flag help lacks %q", want)
		}
	}
}
