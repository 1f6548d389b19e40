package deliver

import (
	"errors"
	"io/fs"

	"arbiter/model"
	"arbiter/store"
)

// Permanent reports whether the field's error err is one that waiting
// will not mend, so that Run stops on it: the field cannot be opened (it
// is gone, or of a format this arbiter does not know), its file is no
// longer at its path (FIELD_GONE: deleted or replaced), it is read-only, or it refuses this deliverer (a
// PostgreSQL role without the grants). Anything else — the field busy
// (FIELD_BUSY), its disk full (STORAGE_FULL), its server out of reach —
// passes, and Run waits it out.
func Permanent(err error) bool {
	var open *store.OpenError
	if errors.As(err, &open) || errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if pe, ok := model.AsError(err); ok {
		switch pe.Code {
		case model.CodeReadOnly, model.CodeNotPermitted, model.CodeFieldGone:
			return true
		}
	}
	return false
}
