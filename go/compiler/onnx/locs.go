package onnx

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// locWriter tracks the line number of the text being printed, so that
// node locations (Options.NodeLocs) can name the op's own position.
type locWriter struct {
	file string
	pos  int // bytes of the output already counted
	line int // 1-based line at pos
}

// lineAt returns the line the next byte written to b starts on.
func (w *locWriter) lineAt(b *strings.Builder) int {
	s := b.String()
	w.line += strings.Count(s[w.pos:], "\n")
	w.pos = len(s)
	return w.line
}

// nodeLoc is the location of an op made from an ONNX node.
type nodeLoc struct {
	w         *locWriter
	label     string
	line, col int
}

// write prints ` loc("label"("file":line:col))`.
func (l *nodeLoc) write(b *strings.Builder) {
	s := b.String()
	if len(s) > 0 && s[len(s)-1] != ' ' {
		b.WriteByte(' ')
	}
	b.WriteString("loc(" + escapeString(l.label) + "(" + escapeString(l.w.file) + ":" +
		strconv.Itoa(l.line) + ":" + strconv.Itoa(l.col) + "))")
}

// nodeLocs returns the location of node n, the index-th node of its graph:
// its name, or "<OpType> #<index>" for an unnamed node.
func (imp *importer) nodeLocs(n *onnxpb.NodeProto, index int) *nodeLoc {
	if imp.locs == nil {
		file := imp.opts.LocFile
		if file == "" {
			file = "model.onnx"
		}
		imp.locs = &locWriter{file: file, line: 1}
	}
	label := n.GetName()
	if label == "" {
		label = n.GetOpType() + " #" + strconv.Itoa(index)
	}
	return &nodeLoc{w: imp.locs, label: label}
}
