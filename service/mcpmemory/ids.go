package mcpmemory

import (
	"strings"

	"arbiter/model"
)

// Lengths of the hash prefixes that name memories and conflicts, and the
// shortest prefix accepted back.
const (
	unitIDLen      = 12
	conflictIDLen  = 6
	conflictIDLong = 12 // when two pairs share the short id
	minPrefix      = 4
)

// unitID names the memory whose content hash is hash.
func unitID(hash string) string { return cut(hash, unitIDLen) }

// conflictID names the pair a < b; long names it with longer prefixes.
func conflictID(a, b string, long bool) string {
	n := conflictIDLen
	if long {
		n = conflictIDLong
	}
	return cut(a, n) + "-" + cut(b, n)
}

// pairKey is the short id of a pair, which two pairs may share.
func pairKey(a, b string) string { return conflictID(a, b, false) }

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// prefix checks a memory id or hash prefix someone typed and returns it
// as a GLOB pattern that matches the hashes it names.
func prefix(op, id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < minPrefix || strings.ContainsAny(id, "*?[]-") {
		return "", model.Errorf(op, model.CodeUnitNotFound, "name a memory by the id arbiter shows (12 characters of its content hash) or its whole hash",
			"%q is not a memory id", id)
	}
	return id + "*", nil
}

// splitConflictID reads "A-B" into the two hash prefixes, lower first as
// typed; ok is false when id is not shaped like a conflict id.
func splitConflictID(id string) (a, b string, ok bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	a, b, found := strings.Cut(id, "-")
	if !found || len(a) < minPrefix || len(b) < minPrefix || strings.ContainsAny(a+b, "*?[]-") {
		return "", "", false
	}
	return a, b, true
}

func notAConflict(op, id string) error {
	return model.Errorf(op, model.CodeConflictNotFound, "list the conflicts with `arbiter list --status all`",
		"there is no conflict %q", id)
}

func ambiguous(op, id string, ids []string) error {
	return model.Errorf(op, model.CodeConflictNotFound, "give more characters of each hash",
		"%q names %d pairs (%s)", id, len(ids), strings.Join(ids, ", "))
}
