package model

import (
	"cmp"
	"slices"
	"time"
)

// Urgency is how soon a row of the queue wants a person, for one viewer:
// lower is sooner.
type Urgency int

const (
	// UrgencyYours: it is routed to the viewer.
	UrgencyYours Urgency = iota
	// UrgencyUrgent: less than a fifth of its time is left, or it is
	// overdue.
	UrgencyUrgent
	// UrgencyWaiting: everything else.
	UrgencyWaiting
)

// UrgencyOf says how soon s wants viewer at now.
func UrgencyOf(s ConflictSummary, viewer string, now time.Time) Urgency {
	switch {
	case s.Route.RoutedTo(viewer):
		return UrgencyYours
	case s.Route != nil && s.Route.Urgent(now):
		return UrgencyUrgent
	}
	return UrgencyWaiting
}

// SortByUrgency orders a queue for viewer at now, as the highway's
// console does: what is routed to the viewer; then what has less than a
// fifth of its time left; then the rest. Within each, what is urgent
// comes first, the earliest deadline first; then the oldest (by epoch).
func SortByUrgency(rows []ConflictSummary, viewer string, now time.Time) {
	slices.SortStableFunc(rows, func(a, b ConflictSummary) int {
		return CompareUrgency(a, b, viewer, now)
	})
}

// CompareUrgency is SortByUrgency's order of two rows.
func CompareUrgency(a, b ConflictSummary, viewer string, now time.Time) int {
	urgent := func(s ConflictSummary) int {
		if s.Route != nil && s.Route.Urgent(now) {
			return 0
		}
		return 1
	}
	deadline := func(s ConflictSummary) int64 {
		if s.Route == nil || s.Route.Deadline == nil || !s.Route.Urgent(now) {
			return 0
		}
		return s.Route.Deadline.UnixNano()
	}
	return cmp.Or(
		cmp.Compare(UrgencyOf(a, viewer, now), UrgencyOf(b, viewer, now)),
		cmp.Compare(urgent(a), urgent(b)),
		cmp.Compare(deadline(a), deadline(b)),
		cmp.Compare(a.Epoch, b.Epoch),
		cmp.Compare(a.ID, b.ID),
	)
}
