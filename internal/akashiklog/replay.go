package akashiklog

import (
	"encoding/json"
	"fmt"
)

// State is a field rebuilt from its events.
type State struct {
	Agents    []*Agent  // in order of first appearance
	Entries   []*Entry  // in replay order of their RECORD
	Anomalies []Anomaly // events that could not be applied as written

	agents  map[string]*Agent
	entries map[string]*Entry
}

// Agent is an agent as its REGISTER and DEREGISTER events left it.
type Agent struct {
	ID           string
	Role         string
	Capabilities []string
	Registered   bool // at least one REGISTER was seen
	Deregistered bool // the latest of its REGISTER/DEREGISTER events was a DEREGISTER
}

// Entry is a recorded entry with its current status.
type Entry struct {
	Index    int    // position in State.Entries
	ID       string // entry_id
	EventID  string // the RECORD's event_id
	Agent    *string
	Lamport  int64
	WallTime int64

	Raw      json.RawMessage // the "entry" object as written
	Topic    string          // entry.topic when it is a non-empty string
	HasTopic bool

	Intent     string
	Confidence *Confidence
	Supersedes string // the entry this one replaces, "" when none

	Status       Status
	SupersededBy string // the entry whose RECORD superseded this one, "" when none
}

// Live reports whether the entry still takes part in conflicts.
func (e *Entry) Live() bool { return e.Status.Live() }

// Anomaly is an event Replay skipped or could only partly apply, such as a
// STATUS_CHANGE for an entry that was never recorded.
type Anomaly struct {
	EventID string
	Line    int
	Reason  string
}

// Agent returns the agent with this id, or nil.
func (s *State) Agent(id string) *Agent { return s.agents[id] }

// Entry returns the entry with this id, or nil.
func (s *State) Entry(id string) *Entry { return s.entries[id] }

// Replay sorts events into replay order (see Compare) and applies them:
// REGISTER and DEREGISTER maintain agents; RECORD adds a committed entry and,
// with "supersedes", marks its predecessor superseded; STATUS_CHANGE sets an
// entry's status. Events that cannot apply are listed in State.Anomalies.
func Replay(events []Event) *State {
	s := &State{agents: map[string]*Agent{}, entries: map[string]*Entry{}}
	for _, e := range sortedEvents(events) {
		switch e.Type {
		case TypeRegister:
			a := s.agent(e.EntryID)
			a.Role, a.Capabilities = e.Role, e.Capabilities
			a.Registered, a.Deregistered = true, false
		case TypeDeregister:
			if s.agents[e.EntryID] == nil {
				s.note(e, "deregisters agent %q, which never registered", e.EntryID)
			}
			s.agent(e.EntryID).Deregistered = true
		case TypeRecord:
			s.record(e)
		case TypeStatusChange:
			if entry := s.entries[e.EntryID]; entry != nil {
				entry.Status = e.NewStatus
			} else {
				s.note(e, "changes the status of unknown entry %q", e.EntryID)
			}
		}
	}
	return s
}

func (s *State) agent(id string) *Agent {
	a := s.agents[id]
	if a == nil {
		a = &Agent{ID: id}
		s.agents[id] = a
		s.Agents = append(s.Agents, a)
	}
	return a
}

func (s *State) record(e Event) {
	if s.entries[e.EntryID] != nil {
		s.note(e, "records entry %q again; the first record is kept", e.EntryID)
		return
	}
	entry := &Entry{
		Index: len(s.Entries), ID: e.EntryID, EventID: e.EventID, Agent: e.Agent,
		Lamport: e.Lamport, WallTime: e.WallTime, Raw: e.Entry,
		Intent: e.Intent, Confidence: e.Confidence, Supersedes: e.Supersedes,
		Status: StatusCommitted,
	}
	if fields, ok := objectFields(e.Entry); ok {
		entry.Topic, _ = stringValue(fields["topic"])
		entry.HasTopic = entry.Topic != ""
	}
	if e.Supersedes != "" {
		if old := s.entries[e.Supersedes]; old == nil {
			s.note(e, "supersedes unknown entry %q", e.Supersedes)
		} else {
			if old.SupersededBy != "" {
				s.note(e, "supersedes entry %q, already superseded by %q", old.ID, old.SupersededBy)
			}
			old.Status, old.SupersededBy = StatusSuperseded, entry.ID
		}
	}
	s.entries[entry.ID] = entry
	s.Entries = append(s.Entries, entry)
}

func (s *State) note(e Event, format string, args ...any) {
	s.Anomalies = append(s.Anomalies, Anomaly{EventID: e.EventID, Line: e.Line, Reason: fmt.Sprintf(format, args...)})
}
