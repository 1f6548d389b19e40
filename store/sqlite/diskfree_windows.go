package sqlite

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// diskFull reports whether the disk of the field at path has less than
// shmRoom free for this user (false where it cannot tell).
func diskFull(path string) bool {
	dir, err := windows.UTF16PtrFromString(filepath.Dir(path))
	if err != nil {
		return false
	}
	var free, total, totalFree uint64
	if windows.GetDiskFreeSpaceEx(dir, &free, &total, &totalFree) != nil || total == 0 {
		return false
	}
	return free < shmRoom
}
