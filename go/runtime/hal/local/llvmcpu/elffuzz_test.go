package llvmcpu

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// The fuzz test's child process (see loadInChild) loads the executables
// in $GREE_ELFFUZZ_DIR from index $GREE_ELFFUZZ_START on, printing "ok N"
// or "err N" after each; with $GREE_ELFFUZZ_RAW=1 it dlopens the objects
// without validating them (the baseline).
const (
	envDir   = "GREE_ELFFUZZ_DIR"
	envStart = "GREE_ELFFUZZ_START"
	envRaw   = "GREE_ELFFUZZ_RAW"
)

// hotRanges returns the byte ranges of obj the loader interprets: the
// headers and tables of the first segment, the dynamic segment and the
// section headers.
func hotRanges(t *testing.T, obj []byte) [][2]int {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	var hot [][2]int
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X == 0 && p.Flags&elf.PF_W == 0 {
			hot = append(hot, [2]int{int(p.Off), int(p.Off + p.Filesz)})
		}
		if p.Type == elf.PT_DYNAMIC || p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0 {
			hot = append(hot, [2]int{int(p.Off), int(p.Off + p.Filesz)})
		}
	}
	shoff := int(binary.LittleEndian.Uint64(obj[40:]))
	return append(hot, [2]int{shoff, len(obj)})
}

// mutate returns a damaged copy of obj: one or more changed bytes (mostly
// where the loader looks), an overwritten field, a copied record or a
// truncation.
func mutate(r *rand.Rand, obj []byte, hot [][2]int) []byte {
	b := bytes.Clone(obj)
	at := func() int {
		if r.IntN(5) == 0 {
			return r.IntN(len(b))
		}
		h := hot[r.IntN(len(hot))]
		return h[0] + r.IntN(max(h[1]-h[0], 1))
	}
	byteValue := func(old byte) byte {
		switch r.IntN(4) {
		case 0:
			return old ^ 1<<r.IntN(8)
		case 1:
			return []byte{0, 0xff, 0x7f, 0x80, 1}[r.IntN(5)]
		}
		return byte(r.Uint32())
	}
	switch k := r.IntN(10); {
	case k < 5:
		i := at()
		b[i] = byteValue(b[i])
	case k < 7:
		i := at() &^ 3
		vals := []uint64{0, 1, 0xffffffff, 1 << 32, ^uint64(0), uint64(len(b)), 1 << 30, 0x7fffffff, r.Uint64(), uint64(r.IntN(1 << 16))}
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], vals[r.IntN(len(vals))])
		copy(b[i:], w[:4<<r.IntN(2)])
	case k < 8:
		for n := 2 + r.IntN(4); n > 0; n-- {
			i := at()
			b[i] = byteValue(b[i])
		}
	case k < 9:
		n := []int{8, 16, 24, 56}[r.IntN(4)]
		src, dst := at(), at()
		if src+n <= len(b) && dst+n <= len(b) {
			copy(b[dst:dst+n], obj[src:src+n])
		} else {
			b[dst] = byteValue(b[dst])
		}
	default:
		b = b[:r.IntN(len(b))]
	}
	return b
}

// fuzzCounts tallies a fuzz run.
type fuzzCounts struct{ tried, rejected, accepted, loaded, dlopenErrors, crashed int }

// TestValidateMutatedObjects damages real kernel objects 1200 times:
// ValidateObject must never panic, and every object it accepts must load
// (dlopen, dlsym of the entries, dlclose) in a child process without
// crashing it. Kernels are not run. With GREE_ELFFUZZ_BASELINE=1 it also
// dlopens every mutation without validation and reports how many crash.
func TestValidateMutatedObjects(t *testing.T) {
	if os.Getenv(envDir) != "" {
		t.Skip("in the child")
	}
	xs := compiledExecutables(t)
	n, seed := 1200, uint64(25)
	if testing.Short() {
		n = 300
	}
	// GREE_ELFFUZZ_N and GREE_ELFFUZZ_SEED run a longer or another fuzz.
	if v, err := strconv.Atoi(os.Getenv("GREE_ELFFUZZ_N")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.ParseUint(os.Getenv("GREE_ELFFUZZ_SEED"), 10, 64); err == nil {
		seed = v
	}
	r := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	var c fuzzCounts
	var all [][]byte // every mutation, for the baseline
	for i := 0; i < n; i++ {
		x := xs[i%len(xs)]
		obj := mutate(r, x.Object, hotRanges(t, x.Object))
		c.tried++
		enc, err := schema.Encode(withObject(x, obj))
		if err != nil {
			c.rejected++ // not even ELF
			continue
		}
		all = append(all, enc)
		if err := ValidateObject(withObject(x, obj)); err != nil {
			if !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT; llvm-cpu executable: its shared object") {
				t.Fatalf("mutation %d: unexpected error %v", i, err)
			}
			c.rejected++
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(c.accepted)), enc, 0o600); err != nil {
			t.Fatal(err)
		}
		c.accepted++
	}
	crashed, errs := loadInChild(t, dir, c.accepted, false)
	c.crashed, c.dlopenErrors, c.loaded = len(crashed), errs, c.accepted-len(crashed)-errs
	t.Logf("mutations tried %d, rejected %d, accepted %d: loaded %d, dlopen errors %d, crashed at load %d",
		c.tried, c.rejected, c.accepted, c.loaded, c.dlopenErrors, c.crashed)
	if c.crashed > 0 {
		t.Errorf("%d accepted objects crashed the loader (indices %v in %s)", c.crashed, crashed, dir)
	}
	if os.Getenv("GREE_ELFFUZZ_BASELINE") == "1" {
		raw := t.TempDir()
		for i, enc := range all {
			os.WriteFile(filepath.Join(raw, strconv.Itoa(i)), enc, 0o600)
		}
		crashed, errs := loadInChild(t, raw, len(all), true)
		t.Logf("baseline without validation: %d ELF mutations dlopened: %d crashed, %d dlopen errors, %d loaded",
			len(all), len(crashed), errs, len(all)-len(crashed)-errs)
	}
}

// loadInChild loads executables 0..n-1 of dir in child processes (this
// test binary re-executed), restarting after each crash; it returns the
// indices that crashed (or hung) and the number of load errors.
func loadInChild(t *testing.T, dir string, n int, raw bool) (crashed []int, loadErrors int) {
	for start := 0; start < n; {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLoadChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envDir+"="+dir, envStart+"="+strconv.Itoa(start), fmt.Sprintf("%s=%v", envRaw, raw))
		out, err := cmd.Output()
		cancel()
		next := start
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var i int
			if _, e := fmt.Sscanf(sc.Text(), "ok %d", &i); e == nil {
				next = i + 1
			} else if _, e := fmt.Sscanf(sc.Text(), "err %d", &i); e == nil {
				next = i + 1
				loadErrors++
				t.Logf("load error: %s", sc.Text())
			}
		}
		if next >= n {
			break
		}
		if err == nil {
			t.Fatalf("child stopped at %d of %d without failing", next, n)
		}
		crashed = append(crashed, next)
		start = next + 1
	}
	return crashed, loadErrors
}

// TestLoadChild is the child process of loadInChild.
func TestLoadChild(t *testing.T) {
	dir := os.Getenv(envDir)
	if dir == "" {
		t.Skip("only run by TestValidateMutatedObjects")
	}
	start, _ := strconv.Atoi(os.Getenv(envStart))
	raw := os.Getenv(envRaw) == "true"
	if err := loadLibm(); err != nil {
		t.Fatal(err)
	}
	for i := start; ; i++ {
		data, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			return
		}
		if raw {
			x, _ := schema.Decode(data)
			l, err := openObject(x.Object)
			if err == nil {
				l.release()
			}
			report(i, err)
			continue
		}
		e, err := Load(data)
		if err == nil {
			e.Close()
		}
		report(i, err)
	}
}

func report(i int, err error) {
	if err != nil {
		fmt.Printf("err %d: %s\n", i, strings.ReplaceAll(err.Error(), "\n", " "))
	} else {
		fmt.Printf("ok %d\n", i)
	}
}
