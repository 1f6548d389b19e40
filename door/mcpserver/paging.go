package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"arbiter/model"
)

// Cursors are opaque to clients: a tool's next_cursor, passed back as
// cursor, reads on after the last row given. They are base64 of a small
// JSON object, never anything from the field but ids and numbers.

// conflictsCursor is where a list of conflicts stopped: in which of its
// two parts (0: the caller's, 1: the others), after the row at epoch
// Epoch with id ID. Rows are in the field's order (epoch, then the order
// of writing), so a page reads on from the first row past that one.
type conflictsCursor struct {
	Part  int    `json:"p"`
	Epoch int64  `json:"e"`
	ID    string `json:"id"`
}

func encodeCursor(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor into v; "" leaves v as it is.
func decodeCursor(op, cursor string, v any) error {
	if cursor == "" {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return model.Errorf(op, model.CodeInvalidRequest, "pass back a next_cursor exactly as given, or none to start again",
			"the cursor is not one this server gave")
	}
	return nil
}

// after reports whether c comes after the cursor's row within its part,
// given whether that row has been passed (passed is updated).
func (k conflictsCursor) after(c model.ConflictSummary, passed *bool) bool {
	switch {
	case *passed || k.ID == "":
		return true
	case c.Epoch < k.Epoch:
		return false
	case c.Epoch == k.Epoch && c.ID == k.ID:
		*passed = true
		return false
	case c.Epoch == k.Epoch:
		return false
	}
	// A later epoch: the cursor's row is gone from the list (decided
	// since); read on from here.
	*passed = true
	return true
}

// inboxCursor is an inbox tool's cursor: the id of the last notification
// given, as since_id takes it.
func inboxCursor(id int64) string {
	return encodeCursor(map[string]string{"n": strconv.FormatInt(id, 10)})
}

func decodeInboxCursor(cursor string) (int64, error) {
	var v map[string]string
	if err := decodeCursor(model.OpAttune, cursor, &v); err != nil || cursor == "" {
		return 0, err
	}
	n, err := strconv.ParseInt(v["n"], 10, 64)
	if err != nil || n < 0 {
		return 0, model.Errorf(model.OpAttune, model.CodeInvalidRequest, "pass back a next_cursor exactly as given, or none to start again",
			"the cursor is not one this server gave")
	}
	return n, nil
}
