package params

import (
	"io"
	"os"

	"github.com/gree-ml/gree/go/status"
)

// copyChunk is the most bytes WriteArchive holds in memory at once when it
// copies an entry from a file handle.
const copyChunk = 4 << 20

// WriteArchive writes the index's entries as an IREE parameter archive
// (.irpa; splats stay splats, file entries are copied into its storage)
// at byte fileOffset of the file at path, which is created or replaced,
// as IREE's iree_io_build_parameter_archive. When target is not nil, the
// entries of the written archive are added to it (ranges of the new file,
// mapped read-only). Writing over a file that an entry reads from is
// INVALID_ARGUMENT.
func (x *Index) WriteArchive(path string, fileOffset uint64, target *Index) error {
	entries := x.Entries()
	if fi, err := os.Stat(path); err == nil {
		for _, e := range entries {
			if e.Handle != nil && e.Handle.sameFile(fi) {
				return status.Errorf(status.InvalidArgument, "params: cannot write an archive over %s: parameter '%s' reads from it", path, e.Key)
			}
		}
	}
	w := Writer{}
	for _, e := range entries {
		if e.Kind == StorageSplat {
			if err := w.AddSplat(e.Key, e.Metadata, e.Pattern, e.Length); err != nil {
				return err
			}
			continue
		}
		w.AddDataFunc(e.Key, e.Metadata, e.Length, func(out io.Writer) error {
			return copyEntry(out, e)
		})
	}
	if fileOffset > 1<<62 {
		return status.Errorf(status.InvalidArgument, "params: file offset %d is too large", fileOffset)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return status.Errorf(status.PermissionDenied, "params: cannot create %s: %v", path, err)
	}
	if _, err := f.Seek(int64(fileOffset), io.SeekStart); err != nil {
		f.Close()
		return status.Errorf(status.Unavailable, "params: %s: %v", path, err)
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return status.Annotate(err, "params: writing %s", path)
	}
	if err := f.Close(); err != nil {
		return status.Errorf(status.Unavailable, "params: writing %s: %v", path, err)
	}
	if target == nil {
		return nil
	}
	h, err := OpenFile(path, true)
	if err != nil {
		return err
	}
	defer h.Release()
	return target.loadAt(h, FormatIRPA, fileOffset)
}

// copyEntry writes a file entry's bytes to out, a chunk at a time.
func copyEntry(out io.Writer, e *IndexEntry) error {
	buf := make([]byte, min(e.Length, copyChunk))
	for done := uint64(0); done < e.Length; {
		n := min(e.Length-done, uint64(len(buf)))
		if err := e.Handle.ReadAt(buf[:n], e.Offset+done); err != nil {
			return status.Annotate(err, "parameter '%s'", e.Key)
		}
		if _, err := out.Write(buf[:n]); err != nil {
			return err
		}
		done += n
	}
	return nil
}
