package demo

import "arbiter/model"

// chargebackRate: just detected; nobody has looked yet.
func chargebackRate() []act {
	return []act{
		unit{Key: "cb-042", By: analyst, Type: model.TypeFinding,
			Purpose: "Baseline the chargeback rate before cutover", Task: "KEEL-175",
			Score: 0.72, Reasoning: "Quarter totals from the disputes table.",
			Content: "Tier-1 chargeback rate, Q3: **0.42 %** of transactions (chargebacks received in Q3 ÷ transactions in Q3)."},

		unit{Key: "cb-018", By: researcher, Type: model.TypeFinding,
			Purpose: "Baseline the chargeback rate before cutover", Task: "KEEL-175",
			Score: 0.66, Reasoning: "Matches the schemes' monitoring method; the last weeks of Q3 are not fully matured yet.",
			Evidence:    []string{"scheme dispute monitoring reports, Q3"},
			Contradicts: "cb-042", Conflict: model.ConflictFactual,
			Why: "Tier-1 chargeback rate: 0.42 % (received ÷ transactions in the quarter) or 0.18 % (by transaction month, as the schemes count)?",
			Content: `
It is **0.18 %**. Chargebacks arrive up to 120 days after the payment; dividing Q3's chargebacks by
Q3's transactions mixes in disputes about Q1 and Q2 — including the June botnet wave. The schemes
count by transaction month, and so should the Keel baseline.`},
	}
}

// penTestTiming: a scheduling clash, just detected.
func penTestTiming() []act {
	return []act{
		unit{Key: "pentest-42", By: planner, Type: model.TypeDecision,
			Purpose: "Schedule the external penetration test", Task: "KEEL-180",
			Score: 0.65, Reasoning: "Week 42 is the only slot the testing firm offered before the freeze.",
			Content: "External pen test: five days in **week 42**, during dual-write."},

		unit{Key: "pentest-43", By: security, Type: model.TypeConstraint,
			Purpose: "Make the pen test cover the final topology", Task: "KEEL-180",
			Score: 0.8, Reasoning: "A test of the dual-write topology says little about the one we will run.",
			Contradicts: "pentest-42", Conflict: model.ConflictPriority,
			Why:     "Pen test in week 42 (the only slot offered) or after the read switch in week 43 (the topology we will actually run)?",
			Content: "The pen test must run **after the read switch** (week 43 or later): in week 42 it would test a dual-write topology that exists only until the switch and miss the read path merchants will use."},
	}
}

// noticedByTheField: three contradictions nobody declared, which the field
// detects as they are recorded (the policy's detection_sensitivity):
// two settlement batch intervals, shadow reads said enabled and disabled,
// and an alerting change that makes an earlier unit no longer true.
func noticedByTheField() []act {
	return []act{
		unit{Key: "batch-15", By: sre, Type: model.TypeObservation,
			Purpose: "Document Keel's settlement batches", Task: "KEEL-190",
			Score: 0.8, Reasoning: "Read off the scheduler's config in production.",
			Content: "Keel's settlement batch runs every **15 minutes**, each batch closing the captures of the interval before."},
		unit{Key: "shadow-on", By: planner, Type: model.TypeObservation,
			Purpose: "Track the shadow read rollout", Task: "KEEL-165",
			Score: 0.7, Reasoning: "The rollout checklist was signed off on Monday.",
			Content: "Shadow reads from the new ledger are **enabled** for all EU merchants since Monday."},
		unit{Key: "alerts-pd", By: sre, Type: model.TypeObservation,
			Purpose: "Document Keel's on-call setup", Task: "KEEL-190",
			Score: 0.85, Reasoning: "From the on-call runbook.",
			Content: "Alerting for Keel goes through **PagerDuty**, to the payments rotation."},

		unit{Key: "batch-60", By: dataEng, Type: model.TypeObservation, Detects: []string{"batch-15"},
			Purpose: "Document Keel's settlement batches", Task: "KEEL-190",
			Score: 0.7, Reasoning: "From the batch job's logs over the last day.",
			Content: "Keel's settlement batch runs every **60 minutes**; the payout files follow each batch."},
		unit{Key: "shadow-off", By: sre, Type: model.TypeObservation, Detects: []string{"shadow-on"},
			Purpose: "Track the shadow read rollout", Task: "KEEL-165",
			Score: 0.75, Reasoning: "The flag's state in the EU cluster this morning.",
			Content: "Shadow reads from the new ledger are **disabled** for EU merchants until the replica lag is fixed."},
		unit{Key: "alerts-og", By: planner, Type: model.TypeDecision, Detects: []string{"alerts-pd"},
			Purpose: "Document Keel's on-call setup", Task: "KEEL-190",
			Score: 0.8, Reasoning: "Decided at the platform sync.",
			Content: "Keel's alerting moved from PagerDuty to **Opsgenie** last sprint."},
	}
}
