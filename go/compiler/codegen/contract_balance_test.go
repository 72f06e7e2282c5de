package codegen

import "testing"

func TestBalancedRowTile(t *testing.T) {
	for _, tc := range []struct {
		name               string
		sm, sn, tm, tn, mx int64
		want               int64
	}{
		// 160 rows in 24-row tiles: 7 workgroups; 40 rows: 4, even for 2
		// and 4 threads.
		{"960to160 at 7x7", 160, 49, 24, 128, 96, 40},
		// Many workgroups: already even, the tile stays.
		{"96 rows, 98 column tiles", 96, 12544, 96, 128, 96, 96},
		// 32 rows, 7 column tiles: 24-row tiles (and 8-row ones) make 14
		// workgroups whose mix of sizes evens out 2 and 4 threads.
		{"144to32 at 28x28", 32, 784, 96, 128, 96, 24},
	} {
		if got := balancedRowTile(tc.sm, tc.sn, tc.tm, tc.tn, tc.mx); got != tc.want {
			t.Errorf("%s: row tile %d, want %d", tc.name, got, tc.want)
		}
	}
	if b := balance(160, 49, 40, 128, 2); b != 1 {
		t.Errorf("4 equal workgroups on 2 threads: balance %v, want 1", b)
	}
	if b := balance(160, 49, 24, 128, 2); b >= 0.95 {
		t.Errorf("7 workgroups on 2 threads: balance %v, want under 0.95", b)
	}
}
