// Package reliability holds no code: its tests prove that a field shared
// by live writers survives them, and people killing processes. Separate
// OS processes (this package's test binary, re-executed as a worker)
// record units and open conflicts, decide the same conflicts with every
// strategy and vote on them, at once and as fast as they can, or are
// killed with SIGKILL at random moments; afterwards the field must pass
// SQLite's integrity check and every invariant of the rules, and hold
// exactly what the processes said they did. See docs/reliability.md.
//
// ARBITER_SOAK=1 (two minutes) or ARBITER_SOAK=10m runs them longer.
package reliability
