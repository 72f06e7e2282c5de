package vio

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/gree-ml/gree/go/status"
)

// annotate appends "; <note>" to err's message, keeping its status code,
// as iree_status_annotate_f does.
func annotate(err error, note string) error {
	if err == nil {
		return nil
	}
	var se *status.Error
	if errors.As(err, &se) {
		msg := note
		if se.Msg != "" {
			msg = se.Msg + "; " + note
		}
		return &status.Error{Code: se.Code, Msg: msg, Err: err}
	}
	return &status.Error{Code: status.Unknown, Msg: err.Error() + "; " + note, Err: err}
}

// fileError converts an os error into a status error with IREE's wording.
func fileError(err error, format string, path string) error {
	code := status.Unknown
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = status.NotFound
	case errors.Is(err, fs.ErrPermission):
		code = status.PermissionDenied
	case errors.Is(err, fs.ErrExist):
		code = status.AlreadyExists
	}
	return status.Errorf(code, format+": %w", path, err)
}

// stream is one open input file and its length, so that "*file.npy" can
// tell when it has read the last array.
type stream struct {
	path string
	f    *os.File
	size int64
}

// streamList keeps one open stream per verbatim path across a list of
// specs (IREE's iree_io_stream_list_t): "@" rewinds a stream, "+" and "*"
// continue where the previous spec left it.
type streamList struct {
	streams map[string]*stream
}

func newStreamList() *streamList { return &streamList{streams: map[string]*stream{}} }

// open returns the stream for path, rewound unless appending; a path seen
// for the first time is opened at its start either way.
func (l *streamList) open(path string, appending bool) (*stream, error) {
	if s, ok := l.streams[path]; ok {
		if !appending {
			if _, err := s.f.Seek(0, io.SeekStart); err != nil {
				return nil, status.Errorf(status.Unimplemented,
					"opened stream from `%s` is not seekable and cannot be reopened", path)
			}
		}
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(err, "failed to open file '%s'", path)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fileError(err, "failed to stat file '%s'", path)
	}
	s := &stream{path: path, f: f, size: st.Size()}
	l.streams[path] = s
	return s, nil
}

// close closes every stream.
func (l *streamList) close() {
	for _, s := range l.streams {
		s.f.Close()
	}
	l.streams = map[string]*stream{}
}

// eos reports whether the stream is at (or past) its end.
func (s *stream) eos() bool {
	pos, err := s.f.Seek(0, io.SeekCurrent)
	return err != nil || pos >= s.size
}

// Read implements io.Reader over the file.
func (s *stream) Read(p []byte) (int, error) { return s.f.Read(p) }

// readFull fills buf or fails with OUT_OF_RANGE when the stream ends first.
func (s *stream) readFull(buf []byte) error {
	n, err := io.ReadFull(s.f, buf)
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return status.Errorf(status.OutOfRange,
			"read of %d bytes from '%s' ran past the end of the stream after %d bytes",
			len(buf), s.path, n)
	}
	return fileError(err, "failed to read file '%s'", s.path)
}
