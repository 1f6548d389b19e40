//go:build unix

package sqlite

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// diskFull reports whether the disk of the field at path has less than
// shmRoom free (false where it cannot tell, or the file system reports
// no size, as some network and FUSE ones do). Root may use the blocks
// kept for it.
func diskFull(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(filepath.Dir(path), &st) != nil || st.Blocks == 0 {
		return false
	}
	free := st.Bavail
	if os.Geteuid() == 0 {
		free = st.Bfree
	}
	return free*uint64(st.Bsize) < shmRoom
}
