package model

import (
	"errors"
	"fmt"
)

// Code is a protocol error code (spec §8).
type Code string

const (
	CodeConflictNotFound     Code = "CONFLICT_NOT_FOUND"
	CodeInvalidTransition    Code = "INVALID_TRANSITION"
	CodeMergeFailed          Code = "MERGE_FAILED"
	CodeAgentNotRegistered   Code = "AGENT_NOT_REGISTERED"
	CodeUnsupportedOperation Code = "UNSUPPORTED_OPERATION"
	CodeUnitNotFound         Code = "UNIT_NOT_FOUND"
	CodeMissingIntent        Code = "MISSING_INTENT"
	CodeMissingConfidence    Code = "MISSING_CONFIDENCE"
	CodeInvalidConfidence    Code = "INVALID_CONFIDENCE"
	CodeInvalidType          Code = "INVALID_TYPE"
	CodeAgentIDTaken         Code = "AGENT_ID_TAKEN"
	CodeStorageFull          Code = "STORAGE_FULL"
	CodeInternalError        Code = "INTERNAL_ERROR"
	// CodeInvalidRequest is arbiter's for a malformed request the protocol
	// has no code for (a missing rationale, an unknown strategy).
	CodeInvalidRequest Code = "INVALID_REQUEST"
	// CodeNotPermitted is arbiter's for a registered caller whose authority
	// or role does not allow the decision.
	CodeNotPermitted Code = "NOT_PERMITTED"
	// CodeFieldBusy is arbiter's for a field another writer kept locked
	// longer than the busy timeout.
	CodeFieldBusy Code = "FIELD_BUSY"
	// CodeReadOnly is arbiter's for a write to a field opened read-only.
	CodeReadOnly Code = "READ_ONLY"
	// CodeFieldGone is arbiter's for a write to a field file that is no
	// longer at its path (deleted, or replaced by another file) since it
	// was opened: nothing is written to a file nobody will read again.
	CodeFieldGone Code = "FIELD_GONE"
)

// recoverable lists the codes a caller can act on and retry.
var recoverable = map[Code]bool{
	CodeInvalidTransition: true, CodeMergeFailed: true, CodeAgentNotRegistered: true,
	CodeMissingIntent: true, CodeMissingConfidence: true, CodeInvalidConfidence: true,
	CodeInvalidType: true, CodeAgentIDTaken: true, CodeInvalidRequest: true,
	CodeFieldBusy: true, CodeUnitNotFound: true,
}

// Malformed reports whether c says the request itself is wrong — a
// missing or empty value, a value of the wrong kind, a unit id that is not
// one of the conflict's — rather than that the field refused a well-formed
// request in its current state.
func (c Code) Malformed() bool {
	switch c {
	case CodeInvalidRequest, CodeMissingIntent, CodeMissingConfidence, CodeInvalidConfidence, CodeInvalidType:
		return true
	}
	return false
}

// Error is a protocol error in the spec's shape.
type Error struct {
	Code            Code   `json:"code"`
	Message         string `json:"message"`
	Operation       string `json:"operation"`
	Recoverable     bool   `json:"recoverable"`
	SuggestedAction string `json:"suggested_action,omitempty"`
}

func (e *Error) Error() string {
	if e.SuggestedAction != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.SuggestedAction)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Is matches any *Error with the same code, so errors.Is(err,
// &Error{Code: CodeInvalidTransition}) works through wrapping.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errorf builds a protocol error for operation op.
func Errorf(op string, code Code, suggested string, format string, args ...any) *Error {
	return &Error{
		Code:            code,
		Message:         fmt.Sprintf(format, args...),
		Operation:       op,
		Recoverable:     recoverable[code],
		SuggestedAction: suggested,
	}
}

// AsError returns the protocol error inside err, if there is one.
func AsError(err error) (*Error, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// HasCode reports whether err is a protocol error with code c.
func HasCode(err error, c Code) bool {
	pe, ok := AsError(err)
	return ok && pe.Code == c
}
