package params

import (
	"math/rand"
	"testing"
)

// mutate applies a few random byte changes to a copy of data.
func mutate(rng *rand.Rand, data []byte) []byte {
	b := append([]byte(nil), data...)
	for k := rng.Intn(4) + 1; k > 0 && len(b) > 0; k-- {
		i := rng.Intn(len(b))
		switch rng.Intn(4) {
		case 0:
			b[i] = byte(rng.Intn(256))
		case 1:
			b[i] ^= 1 << rng.Intn(8)
		case 2:
			b[i] = 0xff
		default:
			b = b[:i]
		}
	}
	return b
}

// TestMutations parses thousands of damaged files of each format: errors
// are fine, panics and entries outside the file are not.
func TestMutations(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for name, data := range map[string][]byte{"m.irpa": sampleIRPA(t), "m.safetensors": sampleSafetensors(t), "m.gguf": sampleGGUF(t)} {
		for i := 0; i < n; i++ {
			checkParse(t, name, mutate(rng, data))
		}
	}
}

func checkParse(t *testing.T, name string, b []byte) {
	t.Helper()
	f, err := FromBytes(name, b)
	if err != nil {
		return
	}
	for _, e := range f.Entries {
		if e.Kind == StorageFile {
			if !inFile(e.Offset, e.Length, uint64(len(b))) {
				t.Fatalf("%s: entry %s lies outside the %d-byte file", name, e, len(b))
			}
			if _, err := e.Data(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func FuzzIRPA(f *testing.F) {
	f.Add(sampleIRPA(f))
	f.Fuzz(func(t *testing.T, b []byte) { checkParse(t, "f.irpa", b) })
}

func FuzzSafetensors(f *testing.F) {
	f.Add(sampleSafetensors(f))
	f.Fuzz(func(t *testing.T, b []byte) { checkParse(t, "f.safetensors", b) })
}

func FuzzGGUF(f *testing.F) {
	f.Add(sampleGGUF(f))
	f.Fuzz(func(t *testing.T, b []byte) { checkParse(t, "f.gguf", b) })
}
