package deliver_test

import (
	"fmt"
	"io/fs"
	"testing"

	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/store"
)

// What waiting mends (busy, full, out of reach) is waited out; what it
// does not (gone, an unknown format, read-only, refused) stops a
// deliverer.
func TestWhatStopsADeliverer(t *testing.T) {
	for err, permanent := range map[error]bool{
		model.Errorf("WRITE", model.CodeFieldBusy, "", "another program kept the field locked"): false,
		model.Errorf("WRITE", model.CodeStorageFull, "", "the disk is full"):                    false,
		model.Errorf("WRITE", model.CodeInternalError, "", "lost the connection"):               false,
		fmt.Errorf("claim: %w", model.Errorf("WRITE", model.CodeReadOnly, "", "read-only")):     true,
		model.Errorf("WRITE", model.CodeNotPermitted, "", "no grant"):                           true,
		&store.OpenError{Name: "f.db", Reason: "was written by a newer arbiter"}:                true,
		fmt.Errorf("open: %w", fs.ErrNotExist):                                                  true,
	} {
		if got := deliver.Permanent(err); got != permanent {
			t.Errorf("Permanent(%v) = %v, want %v", err, got, permanent)
		}
	}
}
