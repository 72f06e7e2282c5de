package flags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/status"
)

func TestParseKinds(t *testing.T) {
	s := &Set{}
	b := s.Bool("verbose", false, "talk more")
	b2 := s.Bool("quiet", true, "talk less")
	n := s.Int("count", 3, "how many")
	f := s.Float("thresh", 0.5, "how close")
	str := s.String("name", "x", "a name")
	l := s.List("input", "inputs")
	rest, err := s.Parse([]string{"pos1", "--verbose", "--quiet=no", "--count=0x10", "--thresh=1e-3",
		"--name=a=b", "--input=1", "--input=2,3", "pos2", "-x", "--input", "--"}, UnknownIsError)
	if err != nil {
		t.Fatal(err)
	}
	if !*b || *b2 || *n != 16 || *f != 1e-3 || *str != "a=b" {
		t.Errorf("values: %v %v %d %g %q", *b, *b2, *n, *f, *str)
	}
	if diff := cmp.Diff([]string{"1", "2,3", ""}, *l); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pos1", "pos2", "-x", "--"}, rest); diff != "" {
		t.Errorf("rest (-want +got):\n%s", diff)
	}
}

func TestNamesAreExact(t *testing.T) {
	s := &Set{}
	s.Bool("list_devices", false, "")
	if _, err := s.Parse([]string{"--list-devices"}, UnknownIsError); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "list-devices") {
		t.Errorf("dashed alias should be unknown: %v", err)
	}
	rest, err := s.Parse([]string{"--benchmark_repetitions=3"}, UnknownIsKept)
	if err != nil || len(rest) != 1 {
		t.Errorf("UnknownIsKept: %v %v", rest, err)
	}
}

func TestBadValues(t *testing.T) {
	s := &Set{}
	s.Int("count", 0, "")
	s.Float("x", 0, "")
	for _, a := range []string{"--count=abc", "--x=1.2.3"} {
		if _, err := s.Parse([]string{a}, UnknownIsError); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("%s: %v", a, err)
		}
	}
}

func TestFlagfile(t *testing.T) {
	s := &Set{}
	l := s.List("module", "")
	n := s.Int("n", 0, "")
	dir := t.TempDir()
	p := filepath.Join(dir, "flags.txt")
	os.WriteFile(p, []byte("# comment\n// also comment\n--module=a.vmfb\n\n--n=4\n--module=b.vmfb\n"), 0o644)
	if _, err := s.Parse([]string{"--flagfile=" + p}, UnknownIsError); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.vmfb", "b.vmfb"}, *l); diff != "" || *n != 4 {
		t.Errorf("flagfile: %v %d", *l, *n)
	}
	os.WriteFile(p, []byte("positional\n"), 0o644)
	if _, err := s.Parse([]string{"--flagfile=" + p}, UnknownIsError); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("positional in flagfile: %v", err)
	}
	if _, err := s.Parse([]string{"--flagfile=" + filepath.Join(dir, "missing")}, UnknownIsError); status.CodeOf(err) != status.NotFound {
		t.Errorf("missing flagfile: %v", err)
	}
}

func TestCallbackAndHelp(t *testing.T) {
	s := &Set{}
	var got []string
	s.Callback("list_devices", "Lists devices.", func(v string) error { got = append(got, v); return nil })
	s.Int("cuda_default_index", 0, "Default CUDA device index.")
	if _, err := s.Parse([]string{"--list_devices", "--list_devices=cuda"}, UnknownIsError); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"", "cuda"}, got); diff != "" {
		t.Errorf("callback values (-want +got):\n%s", diff)
	}
	h := s.Help()
	for _, want := range []string{"# Default CUDA device index.\n--cuda_default_index=0\n", "# --list_devices\n"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %q:\n%s", want, h)
		}
	}
}
