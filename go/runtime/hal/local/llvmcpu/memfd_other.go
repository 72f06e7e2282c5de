//go:build !linux

package llvmcpu

import "errors"

// memfdCreate fails off Linux: the shared object goes to a temporary
// file instead.
func memfdCreate(name string) (int, error) { return -1, errors.New("no memfd_create off Linux") }
