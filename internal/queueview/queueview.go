// Package queueview is the review screen's views: named filters of the
// queue, as the config file's views: list names them, each a query of a
// few terms ("status:escalated owner:me due:24h"). It parses a query into
// a typed View and says whether a queue row matches it. The config
// checks a file's views through it; the screen shows them as tabs.
package queueview

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"arbiter/model"
)

// View is one named filter of the queue.
type View struct {
	// Name is the view's tab.
	Name string
	// Query is the view as written.
	Query string
	// Statuses are the statuses it shows: none given means those that
	// wait for people; All means every status.
	Statuses []model.ConflictStatus
	All      bool
	// Types keeps these conflict types only (none: every type).
	Types []model.ConflictType
	// Owner keeps the conflicts routed to this owner: "me" is the person
	// at the screen, "operators" any human operator (no owner named).
	Owner string
	// Mine keeps what is the person's turn to decide or vote on.
	Mine bool
	// Due keeps the conflicts whose deadline is within Due (or past);
	// Overdue, only those past it. Zero and false: any.
	Due     time.Duration
	Overdue bool
}

// Terms names the terms a query may hold, for messages.
const Terms = "status:S[,S…] (escalated, pending_vote, detected, resolving, resolved, all), type:T[,T…], owner:me|operators|ID, mine, due:overdue|DURATION (24h, 3d)"

// Parse reads a view's query.
func Parse(name, query string) (View, error) {
	v := View{Name: strings.TrimSpace(name), Query: strings.TrimSpace(query)}
	if v.Name == "" {
		return View{}, errors.New("a view needs a name")
	}
	if v.Query == "" {
		return View{}, fmt.Errorf("view %q has no query (%s)", v.Name, Terms)
	}
	for _, term := range strings.Fields(v.Query) {
		if err := v.term(term); err != nil {
			return View{}, fmt.Errorf("view %q: %w", v.Name, err)
		}
	}
	return v, nil
}

func (v *View) term(term string) error {
	k, val, _ := strings.Cut(strings.ToLower(term), ":")
	switch k {
	case "status":
		for _, s := range list(val) {
			s = strings.ReplaceAll(s, "-", "_")
			if s == "vote" {
				s = string(model.StatusPendingVote)
			}
			switch {
			case s == "all":
				v.All = true
			case model.ConflictStatus(s).Valid():
				v.Statuses = append(v.Statuses, model.ConflictStatus(s))
			default:
				return fmt.Errorf("%q is not a status (escalated, pending_vote, detected, resolving, resolved or all)", s)
			}
		}
	case "type":
		for _, t := range list(val) {
			if !model.ConflictType(t).Valid() {
				return fmt.Errorf("%q is not a conflict type (%s)", t, typeNames())
			}
			v.Types = append(v.Types, model.ConflictType(t))
		}
	case "owner":
		_, orig, _ := strings.Cut(term, ":") // an id keeps its case
		if orig == "" {
			return errors.New("owner: needs me, operators or an id")
		}
		v.Owner = orig
	case "mine":
		b, err := strconv.ParseBool(cmp.Or(val, "true"))
		if err != nil {
			return fmt.Errorf("mine:%s is not true or false", val)
		}
		v.Mine = b
	case "due":
		if val == "overdue" {
			v.Overdue = true
			return nil
		}
		d, err := duration(val)
		if err != nil || d <= 0 {
			return fmt.Errorf("due:%s is not overdue or a duration (24h, 3d)", val)
		}
		v.Due = d
	default:
		return fmt.Errorf("unknown term %q (the terms are %s)", term, Terms)
	}
	if k != "mine" && val == "" {
		return fmt.Errorf("%s: needs a value", k)
	}
	return nil
}

// List is the statuses the store is asked for: nil for every status.
func (v View) List() []model.ConflictStatus {
	switch {
	case v.All:
		return nil
	case len(v.Statuses) > 0:
		return v.Statuses
	}
	return model.ReviewStatuses
}

// Sifts reports whether the view keeps rows the store does not tell
// apart: by type, owner or deadline, which Match decides row by row.
func (v View) Sifts() bool { return len(v.Types) > 0 || v.Owner != "" || v.Due > 0 || v.Overdue }

// Match reports whether the row r, as the person viewer sees it at now,
// is one the view keeps by type, owner and deadline (statuses and mine
// are the store's to apply: List, Mine).
func (v View) Match(r model.ConflictSummary, viewer string, now time.Time) bool {
	if len(v.Types) > 0 && !slices.Contains(v.Types, r.Type) {
		return false
	}
	route := r.Route
	if !r.Status.Routed() {
		route = nil
	}
	switch o := v.Owner; {
	case o == "":
	case route == nil:
		return false
	case o == "me" && !route.RoutedTo(viewer):
		return false
	case o == "operators" && route.Owner != "":
		return false
	case o != "me" && o != "operators" && route.Owner != o:
		return false
	}
	if v.Due > 0 || v.Overdue {
		if route == nil {
			return false
		}
		left, ok := route.Left(now)
		if !ok || (v.Overdue && left > 0) || (!v.Overdue && left > v.Due) {
			return false
		}
	}
	return true
}

// duration reads "24h", "90m", "3d" or "1d12h".
func duration(s string) (time.Duration, error) {
	if days, rest, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, err
		}
		d := time.Duration(n) * 24 * time.Hour
		if rest == "" {
			return d, nil
		}
		more, err := time.ParseDuration(rest)
		return d + more, err
	}
	return time.ParseDuration(s)
}

func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func typeNames() string {
	names := make([]string, len(model.ConflictTypes))
	for i, t := range model.ConflictTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
