package akashiklog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Log is a parsed log file: every event, in file order.
type Log struct {
	Events []Event
	// TornTail is set when the last non-empty line was not valid JSON (a
	// writer died mid-line) and was skipped, as the SDK skips it.
	TornTail bool
	// TornLine is that skipped line's number, 0 when TornTail is false.
	TornLine int

	tornOffset int64 // byte offset where the torn line starts
	size       int64 // bytes read
	endsInLF   bool  // the last byte read was '\n' (or nothing was read)
}

// LineError is a line that makes the whole log unreadable.
type LineError struct {
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// ReadFile reads the log at path. See Read.
func ReadFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	log, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("akashik log %s: %w", path, err)
	}
	return log, nil
}

// Read parses a log line by line. Blank lines are skipped. If the last
// non-empty line is not valid JSON it is skipped and reported in
// Log.TornTail. Anything else wrong — invalid JSON on an earlier line, an
// unknown version or type, a missing field, a repeated event_id — is a
// *LineError, and no partial log is returned.
func Read(r io.Reader) (*Log, error) {
	br := bufio.NewReader(r)
	log := &Log{endsInLF: true}
	firstLine := map[string]int{}
	var torn *LineError // an invalid line, fatal unless it turns out to be the last

	for n := 1; ; n++ {
		line, readErr := br.ReadBytes('\n')
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return nil, readErr
		}
		start := log.size
		log.size += int64(len(line))
		if len(line) > 0 {
			log.endsInLF = line[len(line)-1] == '\n'
		}

		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if torn != nil {
				return nil, torn
			}
			if !json.Valid(trimmed) {
				torn = &LineError{Line: n, Reason: "invalid JSON"}
				log.tornOffset = start
			} else {
				e, err := decodeEvent(trimmed)
				if err != nil {
					return nil, &LineError{Line: n, Reason: err.Error()}
				}
				if first, dup := firstLine[e.EventID]; dup {
					return nil, &LineError{Line: n, Reason: fmt.Sprintf("duplicate event_id %q (first on line %d)", e.EventID, first)}
				}
				firstLine[e.EventID] = n
				e.Line = n
				log.Events = append(log.Events, e)
			}
		}
		if readErr != nil { // io.EOF
			break
		}
	}
	if torn != nil {
		log.TornTail, log.TornLine = true, torn.Line
	}
	return log, nil
}

// rawEvent is a line as written, with pointers where absence matters.
type rawEvent struct {
	V            *int            `json:"v"`
	EventID      string          `json:"event_id"`
	Lamport      *int64          `json:"lamport"`
	Agent        *string         `json:"agent"`
	WallTime     *int64          `json:"wall_time"`
	Seq          *int64          `json:"seq"`
	Type         Type            `json:"type"`
	EntryID      string          `json:"entry_id"`
	Role         string          `json:"role"`
	Capabilities []string        `json:"capabilities"`
	Entry        json.RawMessage `json:"entry"`
	Intent       string          `json:"intent"`
	Confidence   *struct {
		Score  *float64 `json:"score"`
		Reason *string  `json:"reason"`
	} `json:"confidence"`
	Supersedes *string `json:"supersedes"`
	NewStatus  Status  `json:"new_status"`
}

// decodeEvent turns one valid JSON line into a validated Event. Unknown
// fields are ignored; a null or absent agent is the null agent.
func decodeEvent(line []byte) (Event, error) {
	var w rawEvent
	if err := json.Unmarshal(line, &w); err != nil {
		return Event{}, describeJSONError(err)
	}
	if w.V == nil {
		return Event{}, missing("v")
	}
	if *w.V != Version {
		return Event{}, fmt.Errorf("unsupported version %d (only v%d is known)", *w.V, Version)
	}
	if w.Type != "" && !w.Type.known() {
		return Event{}, fmt.Errorf("unknown event type %q", w.Type)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"lamport", w.Lamport != nil}, {"wall_time", w.WallTime != nil}, {"seq", w.Seq != nil}} {
		if !f.set {
			return Event{}, missing(f.name)
		}
	}
	e := Event{
		V: *w.V, EventID: w.EventID, Lamport: *w.Lamport, Agent: w.Agent,
		WallTime: *w.WallTime, Seq: *w.Seq, Type: w.Type, EntryID: w.EntryID,
		Role: w.Role, Capabilities: w.Capabilities, Intent: w.Intent, NewStatus: w.NewStatus,
	}
	if w.Type == TypeRecord {
		if kindOf(w.Entry) != kindNull {
			e.Entry = w.Entry
		}
		if w.Supersedes != nil {
			e.Supersedes = *w.Supersedes
		}
		if c := w.Confidence; c != nil {
			if c.Score == nil {
				return Event{}, missing("confidence.score")
			}
			e.Confidence = &Confidence{Score: *c.Score}
			if c.Reason != nil {
				e.Confidence.Reason = *c.Reason
			}
		}
	}
	if err := e.Validate(); err != nil {
		return Event{}, err
	}
	return e, nil
}

// describeJSONError turns a decoding error into a sentence about the field.
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("expected a JSON object, got %s", te.Value)
		}
		return fmt.Errorf("field %q has the wrong type: got %s, want %s", te.Field, te.Value, te.Type)
	}
	return err
}
