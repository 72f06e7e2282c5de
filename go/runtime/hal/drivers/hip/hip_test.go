package hip

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/status"
)

func TestConformance(t *testing.T) { cts.Run(t, Factory) }

func noEnv(string) string { return "" }

func TestMissingLibraryIsUnavailableAndNamesIt(t *testing.T) {
	_, err := create(librarySpec(nil, noEnv))
	if err == nil {
		t.Skip("a HIP runtime is installed here")
	}
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	for _, want := range []string{"libamdhip64.so", "/opt/rocm/lib/libamdhip64.so", "install ROCm's HIP runtime", "--hip_dylib_path=/opt/rocm/lib"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestDylibPathFlagInError(t *testing.T) {
	saved := *flagDylibPath
	t.Cleanup(func() { *flagDylibPath = saved })
	*flagDylibPath = nil
	if _, err := flags.Default.Parse([]string{"--hip_dylib_path=/nonexistent/gree-rocm/lib"}, flags.UnknownIsError); err != nil {
		t.Fatal(err)
	}
	_, err := Factory.Create()
	if status.CodeOf(err) != status.Unavailable {
		t.Fatalf("code = %v, want UNAVAILABLE (%v)", status.CodeOf(err), err)
	}
	for _, want := range []string{"/nonexistent/gree-rocm/lib/libamdhip64.so", "only the paths from --hip_dylib_path were searched"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "libamdhip64.so.6") {
		t.Errorf("explicit paths must replace the default search: %v", err)
	}
}

func TestLibrarySpecSearchOrder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "libamdhip64.so.6.2.60200")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name  string
		flags []string
		env   map[string]string
		want  []string
	}{
		{"default", nil, nil, defaultCandidates},
		{"flag dir", []string{"/opt/rocm-6.2.0/lib/"}, nil, []string{"/opt/rocm-6.2.0/lib/libamdhip64.so"}},
		{"flag file", []string{file}, nil, []string{file}},
		{"flag file: prefix", []string{"file:/x/libamdhip64.so.7"}, nil, []string{"/x/libamdhip64.so.7"}},
		{"flags in order", []string{"/a", "file:/b.so"}, nil, []string{"/a/libamdhip64.so", "/b.so"}},
		{"flag beats env", []string{"/a"}, map[string]string{"IREE_HIP_DYLIB_PATH": "/e"}, []string{"/a/libamdhip64.so"}},
		{"iree env split on ;", nil, map[string]string{"IREE_HIP_DYLIB_PATH": "/e1;file:/e2.so;"}, []string{"/e1/libamdhip64.so", "/e2.so"}},
		{"gree env after iree env", nil, map[string]string{"IREE_HIP_DYLIB_PATH": "/e1", "GREE_HIP_DYLIB_PATH": "/g"}, []string{"/e1/libamdhip64.so", "/g/libamdhip64.so"}},
		{"gree env alone", nil, map[string]string{"GREE_HIP_DYLIB_PATH": "/g"}, []string{"/g/libamdhip64.so"}},
	} {
		env = tc.env
		spec := librarySpec(tc.flags, getenv)
		if diff := cmp.Diff(tc.want, spec.Candidates); diff != "" {
			t.Errorf("%s: candidates (-want +got):\n%s", tc.name, diff)
		}
		if spec.What != "libamdhip64.so" {
			t.Errorf("%s: What = %q", tc.name, spec.What)
		}
	}
}

func TestInitErrorNamesResultAndFix(t *testing.T) {
	err := initError(hipErrorNoDevice, "hipErrorNoDevice")
	if status.CodeOf(err) != status.Unavailable {
		t.Errorf("code = %v", status.CodeOf(err))
	}
	for _, want := range []string{"hipInit failed: hipErrorNoDevice (100)", "/dev/kfd", "HIP_VISIBLE_DEVICES"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// fakeSource answers attributes from a table (others fail).
type fakeSource struct {
	values map[int32]int32
	total  uint64
	arch   string
}

func (f *fakeSource) attribute(attr int32) (int32, error) {
	v, ok := f.values[attr]
	if !ok {
		return 0, status.Errorf(status.InvalidArgument, "unexpected attribute %d", attr)
	}
	return v, nil
}
func (f *fakeSource) totalMemory() (uint64, error) { return f.total, nil }
func (f *fakeSource) archName() (string, error)    { return f.arch, nil }

// w7900 is an AMD Radeon PRO W7900's properties (the device of IREE's
// doc sample, REFERENCE §5 / seed 002).
func w7900() *fakeSource {
	return &fakeSource{arch: "gfx1100", total: 48 << 30, values: map[int32]int32{
		23: 11, 61: 0,
		26: 1024, 27: 1024, 28: 1024,
		56: 1024, 71: 65536, 74: 65536,
		16: 0, 24: 1, 83: 2147483647, 19: 6291456,
		63: 48, 5: 2495000, 60: 1124000, 87: 32,
	}}
}

const w7900Dump = `
- amdhip64_dylib_path: /opt/rocm-6.1.3/lib/libamdhip64.so
- gpu-compute-capability: 11.0
- gpu-arch-name: gfx1100

- launch-max-block-dims: (1024, 1024, 1024)

- block-max-thread-count: 1024
- block-max-32-bit-register-count: 65536
- block-max-shared-memory: 64 KB

- memory-is-integrated-memory: 0
- memory-supports-managed-memory: 1
- memory-total-const-memory-size: 2047 MB
- memory-total-global-memory-size: 49152 MB
- memory-l2-cache-size: 6291456 bytes

- gpu-compute-unit-count: 48
- gpu-compute-max-clock-rate: 2495 mHz
- gpu-memory-max-clock-rate: 1124 mHz
- gpu-warp-size: 32
`

func TestDumpMatchesIREELayout(t *testing.T) {
	got, err := formatDump("/opt/rocm-6.1.3/lib/libamdhip64.so", w7900())
	if err != nil {
		t.Fatal(err)
	}
	if got != w7900Dump {
		t.Errorf("dump mismatch\ngot:\n%q\nwant:\n%q", got, w7900Dump)
	}
	// The seed's sample: the first three items, in this order.
	if !strings.HasPrefix(got, "\n- amdhip64_dylib_path: /opt/rocm-6.1.3/lib/libamdhip64.so\n- gpu-compute-capability: 11.0\n- gpu-arch-name: gfx1100\n") {
		t.Errorf("dump does not start like IREE's sample: %q", got)
	}
}

func TestDumpFailsOnAttributeError(t *testing.T) {
	src := w7900()
	delete(src.values, 87)
	if _, err := formatDump("x", src); err == nil || !strings.Contains(err.Error(), "unexpected attribute 87") {
		t.Errorf("err = %v", err)
	}
}

type noArch struct{ fakeSource }

func (noArch) archName() (string, error) { return "", errors.New("no props") }

func TestDumpFailsWithoutArchName(t *testing.T) {
	if _, err := formatDump("x", &noArch{*w7900()}); err == nil {
		t.Error("want an error")
	}
}

func TestArchNameFromProps(t *testing.T) {
	for _, layout := range []propsLayout{layoutR0600, layoutR0000} {
		buf := make([]byte, propsBufferSize)
		copy(buf, "AMD Instinct MI300X\x00")
		copy(buf[layout.gcnArchName:], "gfx942:sramecc+:xnack-\x00")
		got, err := archNameFromProps(buf, layout, "AMD Instinct MI300X")
		if err != nil || got != "gfx942:sramecc+:xnack-" {
			t.Errorf("%s: got %q, %v", layout.symbol, got, err)
		}
		if _, err := archNameFromProps(buf, layout, "Another GPU"); status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "layout") {
			t.Errorf("%s: name mismatch: %v", layout.symbol, err)
		}
		if _, err := archNameFromProps(buf[:layout.size-1], layout, "AMD Instinct MI300X"); err == nil {
			t.Errorf("%s: short buffer accepted", layout.symbol)
		}
	}
	if layoutR0600.gcnArchName != 1160 || layoutR0000.gcnArchName != 396 {
		t.Errorf("gcnArchName offsets changed: R0600 %d, R0000 %d", layoutR0600.gcnArchName, layoutR0000.gcnArchName)
	}
}

func TestFlagsRegisteredWithIREEDefaults(t *testing.T) {
	help := flags.Default.Help()
	for _, want := range []string{
		"--hip_use_streams=true\n", "--hip_allow_inline_execution=false\n",
		"--hip_async_allocations=true\n", "--hip_async_caching=true\n",
		"--hip_tracing=2\n", "--hip_default_index=0\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("flag help lacks %q", want)
		}
	}
	if f := flags.Default.Lookup("hip_dylib_path"); f == nil || f.Kind != flags.KindList {
		t.Errorf("--hip_dylib_path is not a list flag: %+v", f)
	}
}
