package benchmetrics

import (
	"io"
	"os"
)

// CopyFile copies a field for a benchmark to change, and flushes the copy
// to disk: left to the kernel, a large file's dirty pages would be written
// out during the first checkpoint's fsync, inside the timings.
func CopyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
