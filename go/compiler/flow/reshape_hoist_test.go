package flow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDimGroups checks which reshapes hoistReshapes can see through with
// broadcast tensors: merged runs and unit dimensions pair up, a split
// dimension does not.
func TestDimGroups(t *testing.T) {
	for _, tc := range []struct {
		src, out []int64
		want     [][]int
	}{
		{[]int64{128, 256}, []int64{1, 128, 256}, [][]int{nil, {0}, {1}}},
		{[]int64{1, 128, 256}, []int64{128, 256}, [][]int{{0, 1}, {2}}},
		{[]int64{128, 8, 32}, []int64{128, 256}, [][]int{{0}, {1, 2}}},
		{[]int64{128, 8, 32}, []int64{128, 1, 256}, [][]int{{0}, nil, {1, 2}}},
		{[]int64{4, 1, 6}, []int64{4, 1, 6}, [][]int{{0}, {1}, {2}}},
		{[]int64{4, 6, 1}, []int64{24}, [][]int{{0, 1}}},
		{[]int64{24}, []int64{4, 6}, nil}, // a split
		{[]int64{8, 6, 2}, []int64{48, 2}, [][]int{{0, 1}, {2}}},
		{[]int64{6, 4}, []int64{4, 6}, nil}, // neither
	} {
		if got := dimGroups(tc.src, tc.out); !cmp.Equal(got, tc.want) {
			t.Errorf("dimGroups(%v, %v) = %v, want %v", tc.src, tc.out, got, tc.want)
		}
	}
}
