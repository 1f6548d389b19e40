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
			Content: "The pen test must run **after the read switch** (week 43 or later): in week 42 it would test a dual-write topology that exists for two weeks and miss the read path merchants will use."},
	}
}
