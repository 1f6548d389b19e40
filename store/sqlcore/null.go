package sqlcore

import (
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"
)

// Nullable columns, scanned by both drivers without reflection:
// database/sql calls Scan, pgx the method of its own for the column's
// type. (A **string destination works on both, but database/sql fills
// it by reflection: a fifth more time to read a conflict.)

// Text is a nullable text column.
type Text struct {
	S     string
	Valid bool
}

// Scan reads the column through database/sql.
func (t *Text) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*t = Text{}
	case string:
		*t = Text{v, true}
	case []byte:
		*t = Text{string(v), true}
	default:
		return fmt.Errorf("a text column holds %T", v)
	}
	return nil
}

// ScanText reads the column through pgx.
func (t *Text) ScanText(v pgtype.Text) error {
	*t = Text{v.String, v.Valid}
	return nil
}

// Ptr is the text, nil when NULL.
func (t Text) Ptr() *string {
	if !t.Valid {
		return nil
	}
	s := t.S
	return &s
}

// Int is a nullable integer column.
type Int struct {
	N     int64
	Valid bool
}

// Scan reads the column through database/sql.
func (n *Int) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*n = Int{}
	case int64:
		*n = Int{v, true}
	case float64:
		*n = Int{int64(v), true}
	case string:
		i, err := strconv.ParseInt(v, 10, 64)
		*n = Int{i, err == nil}
		return err
	default:
		return fmt.Errorf("an integer column holds %T", v)
	}
	return nil
}

// ScanInt64 reads the column through pgx.
func (n *Int) ScanInt64(v pgtype.Int8) error {
	*n = Int{v.Int64, v.Valid}
	return nil
}

// Float is a nullable floating-point column.
type Float struct {
	F     float64
	Valid bool
}

// Scan reads the column through database/sql.
func (f *Float) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*f = Float{}
	case float64:
		*f = Float{v, true}
	case int64:
		*f = Float{float64(v), true}
	default:
		return fmt.Errorf("a real column holds %T", v)
	}
	return nil
}

// ScanFloat64 reads the column through pgx.
func (f *Float) ScanFloat64(v pgtype.Float8) error {
	*f = Float{v.Float64, v.Valid}
	return nil
}

// Ptr is the number, nil when NULL.
func (f Float) Ptr() *float64 {
	if !f.Valid {
		return nil
	}
	v := f.F
	return &v
}
