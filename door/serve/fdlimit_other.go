//go:build !unix

package serve

// fdLimit is 0: the system sets no per-process limit of files to read.
func fdLimit() int { return 0 }
