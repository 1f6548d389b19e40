package model

import "time"

// AgentKind tells programs from people.
type AgentKind string

const (
	KindAgent AgentKind = "agent"
	KindHuman AgentKind = "human"
)

// Valid reports whether k is a known kind.
func (k AgentKind) Valid() bool { return k == KindAgent || k == KindHuman }

// Authority levels of the protocol's hierarchy (spec §11.2).
const (
	AuthorityAudit          = 0
	AuthorityObserver       = 2
	AuthorityStandard       = 4
	AuthoritySenior         = 6
	AuthoritySessionCreator = 8
	AuthorityHumanOperator  = 10
)

// AgentStatus is what an agent is doing.
type AgentStatus string

const (
	AgentIdle    AgentStatus = "idle"
	AgentWorking AgentStatus = "working"
	AgentWaiting AgentStatus = "waiting"
	AgentOffline AgentStatus = "offline"
	AgentFailed  AgentStatus = "failed"
)

// Agent is a registered participant of the field: a program or a person.
type Agent struct {
	ID           string      `json:"id"`
	Role         string      `json:"role"`
	Kind         AgentKind   `json:"kind"`
	Authority    int         `json:"authority"`
	Status       AgentStatus `json:"status"`
	RegisteredAt time.Time   `json:"registered_at"`
	// DBRole is the database role bound to the agent (register
	// --db-role): on PostgreSQL only sessions of that role, or of a role
	// granted it, may act as the agent. "" when none is bound.
	DBRole string `json:"db_role,omitempty"`
}

// IsHumanOperator reports whether a is a person with the top authority,
// the only kind of caller who may decide an escalated conflict.
func (a Agent) IsHumanOperator() bool {
	return a.Kind == KindHuman && a.Authority >= AuthorityHumanOperator
}

// CanWrite reports whether a's authority allows recording and deciding at all.
// Observers (2) and auditors (0) only read.
func (a Agent) CanWrite() bool { return a.Authority >= AuthorityStandard }
