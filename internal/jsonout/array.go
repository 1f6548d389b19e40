package jsonout

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"runtime/debug"
)

// WriteArray prints the values each yields as one JSON array, byte for
// byte what Write prints for the slice of them, each element written
// by appendElem (AppendJSON, or a faster writer of the same bytes). The
// values are encoded on a second goroutine while each is still producing
// the rest (reading them from the field, say), so that a long list costs
// about the longer of the two rather than their sum. Nothing reaches w
// unless each and the encoding succeed: a failure leaves no half array
// behind.
func WriteArray[T any](w io.Writer, each func(yield func(T)) error, appendElem func([]byte, T) ([]byte, error)) error {
	// A long list is garbage made fast by a command that is about to
	// exit: collecting it less often took list --json of 10,000
	// conflicts from 126 to 100 ms, at a few MB more.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	values := make(chan T, 256)
	type result struct {
		out net.Buffers
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The array is kept in chunks rather than one growing buffer:
		// 7 MB of list --json copied as it doubled cost 20 ms.
		var out net.Buffers
		cur := make([]byte, 0, chunk)
		var err error
		n := 0
		for v := range values {
			if err != nil {
				continue // drain
			}
			if len(cur) > chunk-chunk/4 {
				out, cur = append(out, cur), make([]byte, 0, chunk)
			}
			if n == 0 {
				cur = append(cur, "[\n  "...)
			} else {
				cur = append(cur, ",\n  "...)
			}
			n++
			cur, err = appendElem(cur, v)
		}
		if n == 0 {
			cur = append(cur, '[')
		} else {
			cur = append(cur, '\n')
		}
		done <- result{append(out, append(cur, "]\n"...)), err}
	}()
	err := each(func(v T) { values <- v })
	close(values)
	r := <-done
	if err != nil {
		return err
	}
	if r.err != nil {
		return r.err
	}
	_, err = r.out.WriteTo(w)
	return err
}

// AppendJSON appends v as an element of WriteArray's array, as
// Write prints it there: encoding/json, indented one level, then
// EscapeControls.
func AppendJSON[T any](b []byte, v T) ([]byte, error) {
	var elem bytes.Buffer
	enc := json.NewEncoder(&elem)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, EscapeControls(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))...), nil
}

// chunk is the size of the pieces WriteArray keeps its output in.
const chunk = 256 << 10
