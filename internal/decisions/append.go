package decisions

import (
	"arbiter/model"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Append appends env to the decisions file at path as one JSON
// line and fsyncs it, holding an exclusive lock on the file meanwhile so
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
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return 0, fmt.Errorf("decisions file %s: lock: %w", path, err)
	}
	defer unix.Flock(int(f.Fd()), unix.LOCK_UN)
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
