package runtime

import (
	"strings"

	"github.com/gree-ml/gree/go/runtime/io/params"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// The parameter API (IREE's iree/io and io_parameters module, what
// iree.runtime's ParameterIndex, FileHandle and create_io_parameters_module
// wrap): file handles, indexes of named parameters, providers that serve an
// index as a scope, and the module that makes a context resolve its
// programs' parameters from providers.

// FileHandle is a reference-counted source of parameter bytes: host
// memory or an open file.
type FileHandle = params.FileHandle

// ParameterIndex is an in-memory list of named parameters.
type ParameterIndex = params.Index

// ParameterIndexEntry is one entry of a ParameterIndex.
type ParameterIndexEntry = params.IndexEntry

// ParameterProvider serves one scope from a ParameterIndex.
type ParameterProvider = params.IndexProvider

// FileAccess says how a FileHandle's bytes may be used.
type FileAccess = params.Access

// FileHandleType says what a FileHandle holds.
type FileHandleType = params.HandleType

// ParameterFormat names a parameter file format ("irpa", "safetensors",
// "gguf").
type ParameterFormat = params.Format

// File handle access bits and types, and entry storage kinds.
const (
	FileAccessRead           = params.AccessRead
	FileAccessWrite          = params.AccessWrite
	FileHandleHostAllocation = params.HandleHostAllocation
	FileHandleFD             = params.HandleFD
	ParameterStorageFile     = params.StorageFile
	ParameterStorageSplat    = params.StorageSplat
)

// WrapFileMemory returns a file handle over host memory the caller keeps
// valid until release runs (see params.WrapMemory).
func WrapFileMemory(name string, data []byte, access FileAccess, release func()) *FileHandle {
	return params.WrapMemory(name, data, access, release)
}

// OpenFileFD returns a file handle reading a duplicate of fd.
func OpenFileFD(fd int, access FileAccess) (*FileHandle, error) { return params.OpenFD(fd, access) }

// OpenParameterFile returns a read-only host-allocation handle over the
// file at path, mapped or read into memory.
func OpenParameterFile(path string, mmap bool) (*FileHandle, error) {
	return params.OpenFile(path, mmap)
}

// NewParameterIndex returns an empty parameter index with one reference.
func NewParameterIndex() *ParameterIndex { return params.NewIndex() }

// ParseParameterFormat returns the format a name ("irpa", ".gguf", "")
// names.
func ParseParameterFormat(name string) (ParameterFormat, error) { return params.ParseFormat(name) }

// DumpParameterIndex is the text IREE's iree_io_parameter_index_dump
// prints for an index under scope.
func DumpParameterIndex(x *ParameterIndex, scope string) string {
	var b strings.Builder
	x.Dump(&b, scope)
	return b.String()
}

// NewParameterProvider returns a provider of scope over x.
func NewParameterProvider(scope string, x *ParameterIndex) (*ParameterProvider, error) {
	return params.NewIndexProvider(scope, x)
}

// ParametersModuleName is the name of the parameters module, IREE's.
const ParametersModuleName = "io_parameters"

// NewParametersModule returns IREE's "io_parameters" module over
// providers: once registered in a context, the parameters of the modules
// registered after it (#flow.parameter.named<"scope"::"key"> globals) are
// resolved from the first provider of their scope instead of the files of
// the --parameters flags, each copied once into memory the runtime owns.
// The module holds a reference to each provider until its last reference
// is released.
func NewParametersModule(providers []*ParameterProvider) (*vm.HostModule, error) {
	set := make(params.ProviderSet, 0, len(providers))
	release := func() {
		for _, p := range set {
			p.Release()
		}
	}
	for i, p := range providers {
		if p == nil {
			release()
			return nil, status.Errorf(status.InvalidArgument, "parameter provider %d is NULL", i)
		}
		if err := p.Retain(); err != nil {
			release()
			return nil, err
		}
		set = append(set, p)
	}
	h, err := vm.NewHostModule(ParametersModuleName, nil, vm.HostHooks{
		NewState: func(c *vm.Context) (any, error) {
			c.SetParameters(set)
			return nil, nil
		},
		Destroy: release,
	})
	if err != nil {
		release()
		return nil, err
	}
	return h, nil
}
