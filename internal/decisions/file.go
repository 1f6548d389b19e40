// Package decisions owns the decisions file: decisions made on a
// read-only copy of a field, one Akashik MERGE message per line, kept for
// `arbiter apply` to replay on the live field. Append writes a message
// (review does, for merge and vote); Read and ReadFile parse a file;
// Decode reads the MERGE request a message carries. The same messages,
// with their results, make the decision history `arbiter export
// --decisions` writes, which reads back too.
package decisions

import (
	"arbiter/internal/akashiklog"
	"arbiter/model"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Message is one message of a decisions file.
type Message struct {
	Line     int
	Envelope model.Envelope
	Request  model.MergeRequest
}

// File is a parsed decisions file.
type File struct {
	Messages []Message
	// TornLine is a torn last line that was skipped (a writer that died
	// mid-line), 0 when there was none.
	TornLine int
}

// ReadFile reads the decisions file at path. See Read.
func ReadFile(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		return d, fmt.Errorf("decisions file %s: %w", path, err)
	}
	return d, nil
}

// Read parses a decisions file: one Akashik MERGE message per
// line (see Append), blank lines skipped. A last line without its
// newline that is not JSON is skipped as torn (a writer that died
// mid-line); anything else wrong — a complete line that is not JSON, the
// last one too, a message of another protocol or
// version or operation, a payload without conflict_id or strategy, a
// message id given twice — is an *akashiklog.LineError naming the line,
// and nothing is returned.
func Read(r io.Reader) (File, error) {
	var out File
	br := bufio.NewReader(r)
	first := map[string]int{}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return File{}, err
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			switch {
			case !json.Valid(trimmed) && line[len(line)-1] == '\n':
				return File{}, &akashiklog.LineError{Line: n, Reason: "invalid JSON"}
			case !json.Valid(trimmed):
				out.TornLine = n // the last line: ReadBytes met the end
			default:
				d, lerr := decodeLine(n, trimmed)
				if lerr != nil {
					return File{}, lerr
				}
				if at, dup := first[d.Envelope.ID]; dup {
					return File{}, &akashiklog.LineError{Line: n,
						Reason: fmt.Sprintf("message id %q is used again (first on line %d)", d.Envelope.ID, at)}
				}
				first[d.Envelope.ID] = n
				out.Messages = append(out.Messages, d)
			}
		}
		if err != nil {
			break
		}
	}
	return out, nil
}

func decodeLine(n int, line []byte) (Message, *akashiklog.LineError) {
	var env model.Envelope
	if err := strict(line, &env); err != nil {
		if key, ok := unknownKey(err); ok {
			return Message{}, &akashiklog.LineError{Line: n, Reason: fmt.Sprintf("unknown key %q in the message (a misspelling?)", key)}
		}
		return Message{}, &akashiklog.LineError{Line: n, Reason: "not an Akashik message: " + err.Error()}
	}
	req, err := Decode(env)
	if err != nil {
		return Message{}, &akashiklog.LineError{Line: n, Reason: err.Error()}
	}
	return Message{Line: n, Envelope: env, Request: req}, nil
}

// Decode reads the MERGE request an offline decision message
// carries (see Append): a MERGE proper, or a ballot (strategy
// vote with a winner_id). A payload key that is neither the request's nor
// the result the decision history `arbiter export --decisions` adds is
// an error naming it: a misspelt "expected_version" must not apply a
// decision as if no version were expected.
func Decode(env model.Envelope) (model.MergeRequest, error) {
	var req model.MergeRequest
	if err := env.Check(); err != nil {
		return req, err
	}
	if env.Operation != model.OpMerge {
		return req, fmt.Errorf("operation %q is not MERGE", env.Operation)
	}
	var rec model.DecisionRecord
	if err := strict(env.Payload, &rec); err != nil {
		if key, ok := unknownKey(err); ok {
			return req, fmt.Errorf("unknown key %q in the payload (a misspelling?)", key)
		}
		return req, fmt.Errorf("payload: %v", err)
	}
	req = rec.MergeRequest
	switch {
	case strings.TrimSpace(req.ConflictID) == "":
		return req, fmt.Errorf("payload has no conflict_id")
	case req.Strategy == "":
		return req, fmt.Errorf("payload has no strategy")
	case req.ExpectedVersion < 0:
		return req, fmt.Errorf("payload.expected_version %d is negative", req.ExpectedVersion)
	}
	return req, nil
}

// strict decodes one JSON value from data into v, refusing keys v does
// not have, and anything after the value.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// unknownKey is the key encoding/json refused as unknown, if err is that
// refusal (its only form is the message "json: unknown field \"KEY\"").
func unknownKey(err error) (string, bool) {
	const prefix = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	key, uerr := strconv.Unquote(strings.TrimPrefix(msg, prefix))
	return key, uerr == nil
}
