package akashiklog

import "encoding/json"

// kind is the shape of a JSON value, read from its first byte.
type kind int

const (
	kindInvalid kind = iota
	kindObject
	kindArray
	kindString
	kindNumber
	kindBool
	kindNull
)

// primitive reports whether values of this kind can conflict in reckon.
func (k kind) primitive() bool {
	return k == kindString || k == kindNumber || k == kindBool || k == kindNull
}

// kindOf classifies an already valid JSON value without decoding it.
func kindOf(raw json.RawMessage) kind {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return kindObject
		case '[':
			return kindArray
		case '"':
			return kindString
		case 't', 'f':
			return kindBool
		case 'n':
			return kindNull
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return kindNumber
		}
		return kindInvalid
	}
	return kindInvalid
}

// objectFields decodes a JSON object into its top-level fields. It returns
// false when raw is not an object.
func objectFields(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if kindOf(raw) != kindObject {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, false
	}
	return fields, true
}

// stringValue decodes raw when it is a JSON string.
func stringValue(raw json.RawMessage) (string, bool) {
	if kindOf(raw) != kindString {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
