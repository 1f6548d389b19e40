package sqlcore

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// TimeText is how a SQLite field keeps times: UTC, RFC 3339 with
// nanoseconds, so that text order is time order.
const TimeText = "2006-01-02T15:04:05.000000000Z"

// FormatTime is t as a SQLite field keeps it.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeText) }

// ParseTime reads a time a SQLite field keeps; the zero time for text
// that is none.
func ParseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Time is a time column of either engine, scanned: SQLite's text or
// PostgreSQL's timestamptz, in UTC. NULL leaves it zero and not Valid.
type Time struct {
	T     time.Time
	Valid bool
}

// Scan reads a time through database/sql (SQLite's text).
func (t *Time) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*t = Time{}
	case string:
		*t = Time{ParseTime(v), true}
	case []byte:
		*t = Time{ParseTime(string(v)), true}
	case time.Time:
		*t = Time{v.UTC(), true}
	default:
		return fmt.Errorf("a time column holds %T", v)
	}
	return nil
}

// ScanTimestamptz reads a time through pgx (PostgreSQL's timestamptz),
// without the detour of Scan.
func (t *Time) ScanTimestamptz(v pgtype.Timestamptz) error {
	*t = Time{v.Time.UTC(), v.Valid}
	return nil
}

// Ptr is the time, nil when NULL.
func (t Time) Ptr() *time.Time {
	if !t.Valid {
		return nil
	}
	v := t.T
	return &v
}
