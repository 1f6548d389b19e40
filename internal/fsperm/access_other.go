//go:build !unix

package fsperm

import "os"

// canWrite opens a file for writing to see whether that is allowed (the
// mode bits, already looked at, are all a directory is judged by here).
func canWrite(path string, dir bool) bool {
	if dir {
		return true
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
