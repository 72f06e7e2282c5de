package wire

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func TestRoundTripAndDamage(t *testing.T) {
	w := NewWriter(16)
	w.Str("hello")
	w.Uv(300)
	w.U8(7)
	w.Bytes([]byte{1, 2, 3})
	data := w.Finish("TEST", 3)
	r, err := Open(data, "test file", "TEST", 3)
	if err != nil {
		t.Fatal(err)
	}
	if s, n, b, p := r.Str(10), r.Count(1000), r.U8(), r.Bytes(10); s != "hello" || n != 300 || b != 7 || len(p) != 3 || r.Done() != nil {
		t.Errorf("read back %q %d %d %v %v", s, n, b, p, r.Done())
	}
	for _, c := range []struct {
		data []byte
		code status.Code
		msg  string
	}{
		{data[:10], status.DataLoss, "truncated"},
		{append([]byte("XXXX"), data[4:]...), status.InvalidArgument, "not a test file"},
		{append(append([]byte(nil), data...), 0), status.DataLoss, "header says the body has"},
	} {
		if _, err := Open(c.data, "test file", "TEST", 3); status.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Open = %v, want %v containing %q", err, c.code, c.msg)
		}
	}
	if _, err := Open(append([]byte("XXXX"), data[4:]...), "llvm-cpu executable", "TEST", 3); err == nil || !strings.Contains(err.Error(), "not an llvm-cpu executable") {
		t.Errorf("article: %v", err)
	}
	r, _ = Open(data, "test file", "TEST", 3)
	if r.Count(4); status.CodeOf(r.Err()) != status.DataLoss {
		t.Errorf("a count over its limit: %v", r.Err())
	}
	r, _ = Open(data, "test file", "TEST", 3)
	r.Str(10)
	if err := r.Done(); status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "trailing bytes") {
		t.Errorf("Done with bytes left: %v", err)
	}
}
