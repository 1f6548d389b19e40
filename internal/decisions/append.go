package decisions

import (
	"arbiter/model"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Taken says that a decisions file already decides what a message
// would: its conflict, or for a ballot, its voter's ballot on it.
type Taken struct {
	Path    string
	Line    int
	Earlier model.Envelope
}

func (e *Taken) Error() string {
	return fmt.Sprintf("%s already decides this on line %d (message %s by %s)", e.Path, e.Line, e.Earlier.ID, e.Earlier.AgentID)
}

// Append appends env to the decisions file at path as one JSON
// line and fsyncs it, unless a message already in the file decides the
// same thing (a *Taken error then: a second decision on one conflict would
// only be refused when applied); holding an exclusive lock on the file meanwhile so
// that several writers (a screen and a command line) take turns. env's
// epoch becomes one more than the largest of seen and the epochs already
// in the file; it is returned. A torn last line (a writer that died
// mid-line) is cut off first.
func Append(path string, env model.Envelope, seen int64) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, fmt.Errorf("decisions file: %w", err)
	}
	defer f.Close()
	if err := lock(f); err != nil {
		return 0, fmt.Errorf("decisions file %s: lock: %w", path, err)
	}
	defer unlock(f)
	data, err := io.ReadAll(f)
	if err != nil {
		return 0, fmt.Errorf("decisions file %s: %w", path, err)
	}
	end := len(data)
	var prefix []byte
	if last := bytes.LastIndexByte(data, '\n') + 1; last < len(data) {
		if json.Valid(bytes.TrimSpace(data[last:])) {
			prefix = []byte{'\n'} // a whole line without its newline
		} else {
			end = last // torn: drop it
		}
	}
	if line, earlier, ok := taking(data[:end], env); ok {
		return 0, &Taken{Path: path, Line: line, Earlier: earlier}
	}
	env.Epoch = max(seen, maxEpoch(data[:end])) + 1
	line, err := json.Marshal(env)
	if err != nil {
		return 0, err
	}
	line = append(append(prefix, line...), '\n')
	if end < len(data) {
		if err := f.Truncate(int64(end)); err != nil {
			return 0, fmt.Errorf("decisions file %s: cut torn line: %w", path, err)
		}
	}
	if _, err := f.WriteAt(line, int64(end)); err != nil {
		return 0, fmt.Errorf("decisions file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("decisions file %s: fsync: %w", path, err)
	}
	return env.Epoch, nil
}

// taking finds the first message in a decisions file's text that decides
// what env does: a decision on the same conflict, or, when env is a
// ballot, a ballot by the same agent or a decision on that conflict.
// Other agents' ballots on one conflict sit side by side.
func taking(data []byte, env model.Envelope) (int, model.Envelope, bool) {
	req, err := Decode(env)
	if err != nil {
		return 0, model.Envelope{}, false
	}
	_, ballot := req.Ballot()
	for i, raw := range bytes.Split(data, []byte{'\n'}) {
		var old model.Envelope
		if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &old) != nil {
			continue
		}
		oldReq, err := Decode(old)
		if err != nil || oldReq.ConflictID != req.ConflictID {
			continue
		}
		if _, oldBallot := oldReq.Ballot(); ballot && oldBallot && old.AgentID != env.AgentID {
			continue
		}
		return i + 1, old, true
	}
	return 0, model.Envelope{}, false
}

// Decided lists what the decisions file at path decides, by conflict
// id: the messages on each conflict, in file order. A missing file
// decides nothing.
func Decided(path string) (map[string][]Message, error) {
	file, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]Message{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]Message{}
	for _, m := range file.Messages {
		out[m.Request.ConflictID] = append(out[m.Request.ConflictID], m)
	}
	return out, nil
}

// maxEpoch is the largest epoch of the messages in a decisions file's
// text; lines that are not messages are skipped.
func maxEpoch(data []byte) int64 {
	var top int64
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var e struct {
			Epoch int64 `json:"epoch"`
		}
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &e) == nil {
			top = max(top, e.Epoch)
		}
	}
	return top
}
