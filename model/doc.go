// Package model holds the Akashik protocol's nouns as arbiter uses them —
// memory units, agents, conflicts, resolutions, votes, notifications, events
// and protocol errors — and pure functions over them. It does no I/O.
package model
