package demo

import "arbiter/model"

// kickoff sets the mission: the operator's ground rules, the planner's
// phases and the security auditor's boundaries.
func kickoff() []act {
	return []act{
		unit{Key: "rules", By: Operator, Type: model.TypeHumanDirective,
			Purpose: "Set the mission and the ground rules of the migration", Task: "KEEL-0",
			Score: 0.95, Reasoning: "Agreed with the CFO and the three leads on Monday's kickoff call.",
			Evidence: []string{"kickoff call notes, week 37"},
			Content: `
# Project Keel — ground rules

We are moving card payments off **Quarry** (the 2014 monolith on MySQL 5.7) onto the
**Keel** ledger: Go services, Postgres 16, double-entry, event-sourced.

- The cutover must be finished before the **16 November change freeze**.
- No merchant sees a double charge, a lost refund or a late payout. Ever.
- Every go/no-go gate is a number written down in this field *before* we measure it.
- Anything touching PANs, keys or PCI scope goes through sec-vega first.

Disagree in the open: record it, link it with ´contradicts´, and let the field sort it out.`},

		unit{Key: "plan", By: planner, Type: model.TypeIntention,
			Purpose: "Lay out the migration phases and their exit gates", Task: "KEEL-1",
			Score: 0.8, Reasoning: "Phases mirror the 3DS2 rollout, which shipped on time; the dates assume no phase slips more than a week.",
			Evidence:    []string{"3DS2 rollout retrospective (2024)", "team capacity sheet, Q4"},
			Assumptions: []string{"Phase 0 starts in week 38", "no more than one week of slip per phase"},
			Informs:     []string{"rules"},
			Content: `
## Keel migration plan (v3)

| Phase | What happens | Exit gate | Weeks |
|---|---|---|---|
| 0 · Shadow | Keel consumes Quarry's events; merchants see nothing | recon drift < 0.01 % for 14 days | 38–40 |
| 1 · Dual-write | every transaction written to both ledgers | zero double-posts, p99 authorize < 250 ms | 41–42 |
| 2 · Read switch | dashboards and payouts read Keel | payout files byte-identical for 5 days | 43 |
| 3 · Cutover | Quarry read-only, then off | rollback drill under 30 min | 44 |

Each gate is checked by someone who did not build the thing being checked.`},

		unit{Key: "pci", By: security, Type: model.TypeConstraint,
			Purpose: "State the PCI boundaries every Keel design must respect", Task: "KEEL-4",
			Score: 0.9, Reasoning: "Straight from our 2024 Report on Compliance; nothing here is new policy.",
			Evidence:    []string{"2024 ROC, scoping section", "vault design doc v2"},
			Assumptions: []string{"the QSA scopes the new ledger the way they scoped Quarry"},
			Content: `
**PCI boundaries for Keel**

- No PAN leaves the vault, encrypted or not. Keel sees network tokens only.
- Only the detokenisation worker may call the vault.
- Truncated card numbers: first six and last four, never more.
- Every access to key material is logged to the audit stream (req. 10).`},
	}
}

// rollbackQuestion is the operator asking the question everyone avoids,
// and the SRE's answer.
func rollbackQuestion() []act {
	return []act{
		unit{Key: "q-rollback", By: Operator, Type: model.TypeQuestion,
			Purpose: "Know the worst case before signing the cutover", Task: "KEEL-150",
			Question: "If reconciliation fails after the read switch, how long until merchants see Quarry's numbers again?",
			Score:    0.5, Reasoning: "An open question; the score says how much I trust the current answer (not much).",
			Content: "If recon fails *after* the read switch, how long until merchants see Quarry's numbers again — and who makes the call?"},

		unit{Key: "a-rollback", By: sre, Type: model.TypeFinding, Answers: "q-rollback",
			Purpose: "Answer the operator's rollback question with the runbook", Task: "KEEL-150",
			Score: 0.7, Reasoning: "Each step is timed from the staging drill; production adds the unknown of live traffic.",
			Evidence:    []string{"staging rollback drill, week 39: 22 min end to end"},
			Assumptions: []string{"the on-call lead is reachable within 5 minutes"},
			Content: `
About **22 minutes** on staging; I'd plan for 40 in production.

1. Incident lead declares rollback (target: 5 min from the recon alert).
2. Flip ´ledger.read_source´ to ´quarry´ for all cohorts — propagates in under 5 s.
3. Replay Keel-only writes since the switch into Quarry from the outbox (≈ 10 min at peak).
4. Re-run the payout file for the day from Quarry; diff against the one already sent.
5. Status page + merchant email from the prepared template.

The call is the incident lead's; the operator is informed, not asked.`},
	}
}
