package mcpmemory

import (
	"arbiter/internal/sqlitefail"
)

// translate turns SQLite's failures on their file into protocol errors of
// operation op that a person can act on, classified as the field's are
// (sqlitefail.Translate); other errors pass through unchanged.
func translate(op string, err error) error { return sqlitefail.Translate(op, err, fileWords) }

func fileWords(f sqlitefail.Failure) (fix, what string) {
	switch f {
	case sqlitefail.FailureBusy:
		return "try again in a moment",
			"another program (mcp-memory-service?) kept the file locked for writing longer than the busy timeout; nothing was written"
	case sqlitefail.FailureFull:
		return "free disk space and try again", "the disk is full; nothing was written"
	case sqlitefail.FailureReadOnly:
		return "open the file without --read-only, on writable storage", "the file cannot be written; nothing was written"
	case sqlitefail.FailureDamaged:
		return "restore it from a backup", "the file is damaged"
	}
	return "check the disk and try again", "the file could not be read or written"
}
