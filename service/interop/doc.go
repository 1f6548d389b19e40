// Package interop moves a field's content in and out of arbiter:
//
//   - ImportAkashik folds an Akashik SDK event log (JSONL) into a field:
//     its agents, its entries as memory units, and the conflicts the SDK's
//     own rule finds, as one transaction that can be repeated.
//   - ExportAkashik appends the field's decisions on those conflicts to
//     the log, in the SDK's terms, once.
//   - ApplyDecisions replays a decisions file (Akashik MERGE messages
//     written offline; internal/decisions owns the file's format) on a
//     live field; DecisionHistory lists a field's decisions as such
//     messages.
//
// It orchestrates: the rules stay in review, the SQL in store, the SDK's
// wire format in internal/akashiklog. docs/akashik-interop.md describes
// the mappings.
package interop
