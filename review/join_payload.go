package review

import (
	"bytes"
	"encoding/json"
	"strings"
)

// remapPayload rewrites the ids in a brought event's payload to what the
// join made of them: a string that is a unit id of the fork becomes the
// unit's id here, one that is a conflict id this join brought becomes
// the conflict's. Text in which an id is only mentioned (a rationale, a
// summary) is left as it was written. A payload that is not JSON is kept
// whole.
func (j *joiner) remapPayload(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, nil
	}
	changed := false
	v, err := j.remapValue(v, &changed)
	if err != nil || !changed {
		return raw, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw, nil
	}
	return out, nil
}

func (j *joiner) remapValue(v any, changed *bool) (any, error) {
	switch x := v.(type) {
	case string:
		here := x
		switch {
		case strings.HasPrefix(x, "mem-"):
			var err error
			if here, _, err = j.unitHere(x); err != nil {
				return nil, err
			}
		case strings.HasPrefix(x, "conflict-"):
			if id, ok := j.conflicts[x]; ok {
				here = id
			}
		}
		if here != x {
			*changed = true
		}
		return here, nil
	case []any:
		for i := range x {
			y, err := j.remapValue(x[i], changed)
			if err != nil {
				return nil, err
			}
			x[i] = y
		}
	case map[string]any:
		for k := range x {
			y, err := j.remapValue(x[k], changed)
			if err != nil {
				return nil, err
			}
			x[k] = y
		}
	}
	return v, nil
}
