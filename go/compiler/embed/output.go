package embed

import (
	"bytes"
	"fmt"
	"os"
	"sync"
)

// Output receives what an invocation writes: memory, a file (removed when
// the output is closed unless kept, as a tool's output is on failure) or a
// file descriptor the caller owns.
type Output struct {
	mu   sync.Mutex
	buf  *bytes.Buffer
	file *os.File
	path string
	keep bool
	own  bool // the file was opened here (closed on Close)
}

// OpenMembuffer returns an output that keeps what is written in memory
// (see Bytes).
func OpenMembuffer() *Output { return &Output{buf: &bytes.Buffer{}} }

// OpenOutputFile creates (or truncates) the file at path.
func OpenOutputFile(path string) (*Output, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open output file: %w", err)
	}
	return &Output{file: f, path: path, own: true}, nil
}

// OpenOutputFD writes to an open file descriptor, which stays the caller's.
func OpenOutputFD(fd int) (*Output, error) {
	f := os.NewFile(uintptr(fd), fmt.Sprintf("fd %d", fd))
	if f == nil {
		return nil, fmt.Errorf("invalid file descriptor %d", fd)
	}
	return &Output{file: f, keep: true}, nil
}

// Write appends data.
func (o *Output) Write(data []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.buf != nil:
		return o.buf.Write(data)
	case o.file != nil:
		return o.file.Write(data)
	}
	return 0, fmt.Errorf("the output is closed")
}

// Bytes returns what a membuffer output holds; outputs to files have no
// memory to map.
func (o *Output) Bytes() ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.buf == nil {
		return nil, fmt.Errorf("only a membuffer output can be mapped; this output writes to %s", o.describe())
	}
	return o.buf.Bytes(), nil
}

func (o *Output) describe() string {
	if o.path != "" {
		return "the file " + o.path
	}
	if o.file != nil {
		return o.file.Name()
	}
	return "nothing (closed)"
}

// Keep marks a file output to stay after Close.
func (o *Output) Keep() {
	o.mu.Lock()
	o.keep = true
	o.mu.Unlock()
}

// Close releases the output: a file opened by OpenFile is closed, and
// removed unless kept; a descriptor from OpenFD is left open.
func (o *Output) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var err error
	if o.file != nil && o.own {
		err = o.file.Close()
		if !o.keep {
			if rerr := os.Remove(o.path); rerr != nil && err == nil {
				err = rerr
			}
		}
	}
	o.file, o.buf = nil, nil
	return err
}
