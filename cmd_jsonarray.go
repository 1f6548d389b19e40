package main

import (
	"bytes"
	"encoding/json"
	"io"
)

// writeJSONArray prints the values each yields as one JSON array, byte for
// byte what writeJSON prints for the slice of them. The values are
// encoded on a second goroutine while each is still producing the rest
// (reading them from the field, say), so that a long list costs about the
// longer of the two rather than their sum. Nothing reaches w unless each
// and the encoding succeed: a failure leaves no half array behind.
func writeJSONArray[T any](w io.Writer, each func(yield func(T)) error) error {
	values := make(chan T, 256)
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var out, elem bytes.Buffer
		enc := json.NewEncoder(&elem)
		enc.SetEscapeHTML(false)
		enc.SetIndent("  ", "  ")
		var err error
		n := 0
		for v := range values {
			if err != nil {
				continue // drain
			}
			elem.Reset()
			if err = enc.Encode(v); err != nil {
				continue
			}
			if n == 0 {
				out.WriteString("[\n  ")
			} else {
				out.WriteString(",\n  ")
			}
			out.Write(escapeControls(bytes.TrimSuffix(elem.Bytes(), []byte("\n"))))
			n++
		}
		if n == 0 {
			out.WriteString("[")
		} else {
			out.WriteString("\n")
		}
		out.WriteString("]\n")
		done <- result{out.Bytes(), err}
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
	_, err = w.Write(r.out)
	return err
}
