package tooling

import (
	"io"
	"os"

	"github.com/gree-ml/gree/go/internal/hugepage"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// ReadModuleFile reads a module from a path, or from stdin for "-".
func ReadModuleFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, status.Errorf(status.DataLoss, "reading the module from stdin: %v", err)
		}
		return data, nil
	}
	data, err := readFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, status.Errorf(status.NotFound, "module file '%s' not found", path)
		}
		if status.CodeOf(err) == status.ResourceExhausted {
			return nil, err
		}
		return nil, status.Errorf(status.Unavailable, "reading module file '%s': %v", path, err)
	}
	return data, nil
}

// LoadModules reads and verifies every --module in order.
func LoadModules(paths []string, stdin io.Reader) ([]*vm.Module, error) {
	var out []*vm.Module
	for _, p := range paths {
		data, err := ReadModuleFile(p, stdin)
		if err != nil {
			return nil, err
		}
		m, err := vm.LoadModule(data)
		if err != nil {
			return nil, status.Annotate(err, "loading module '%s'", p)
		}
		out = append(out, m)
	}
	return out, nil
}

// readFile reads a whole file, a regular one into a buffer advised for
// huge pages (a module's constants are read on every run); anything else
// (a pipe, /dev/stdin), whose size is not known beforehand, as
// os.ReadFile does.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return io.ReadAll(f)
	}
	if err := hal.CheckHostAllocation(st.Size(), "the module file "+path); err != nil {
		return nil, err
	}
	data := hugepage.Alloc(int(st.Size()))
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}
