package embed

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
)

// Source is a program to compile: MLIR text (or an ONNX model, as
// iree-compile takes one).
type Source struct {
	Name string
	Data []byte
	// FirstLine is the line of the file Data starts at (a part of a split
	// source), for diagnostics.
	FirstLine int
}

// OpenSourceFile reads a source from a file.
func OpenSourceFile(path string) (*Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open source file: %w", err)
	}
	return &Source{Name: path, Data: data, FirstLine: 1}, nil
}

// WrapBuffer makes a source of data (copied), named name in diagnostics;
// nullTerminated says data's last byte is a terminating NUL, which is not
// part of the program.
func WrapBuffer(name string, data []byte, nullTerminated bool) *Source {
	if nullTerminated && len(data) > 0 && data[len(data)-1] == 0 {
		data = data[:len(data)-1]
	}
	if name == "" {
		name = "source.mlir"
	}
	return &Source{Name: name, Data: bytes.Clone(data), FirstLine: 1}
}

// splitMarker is the line --split-input-file splits on.
var splitMarker = regexp.MustCompile(`(?m)^// -----.*$\n?`)

// Split returns the parts of the source separated by "// -----" lines,
// each named as the source and numbered from its first line.
func (s *Source) Split() []*Source {
	var parts []*Source
	line, start := s.FirstLine, 0
	for _, m := range splitMarker.FindAllIndex(s.Data, -1) {
		part := s.Data[start:m[0]]
		parts = append(parts, &Source{Name: s.Name, Data: part, FirstLine: line})
		line += bytes.Count(s.Data[start:m[1]], []byte("\n"))
		start = m[1]
	}
	return append(parts, &Source{Name: s.Name, Data: s.Data[start:], FirstLine: line})
}
