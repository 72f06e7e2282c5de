package llvmcpu

import "golang.org/x/sys/unix"

// memfdCreate creates an anonymous memory file, closed on exec.
func memfdCreate(name string) (int, error) { return unix.MemfdCreate(name, unix.MFD_CLOEXEC) }
