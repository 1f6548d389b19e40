package demo

import "arbiter/model"

// dualWriteMechanism: CDC against an outbox, put to the leads; the third
// ballot reaches the quorum and closes the vote.
func dualWriteMechanism() []act {
	return []act{
		unit{Key: "cdc", By: dataEng, Type: model.TypeIntention,
			Purpose: "Choose how Quarry's writes reach Keel during dual-write", Task: "KEEL-70",
			Score: 0.7, Reasoning: "Debezium is proven here (the reporting warehouse uses it); the risk is coupling to table layout.",
			Evidence:    []string{"reporting warehouse CDC pipeline, running since 2023"},
			Assumptions: []string{"Quarry's schema does not change during the migration"},
			Content:     "Dual-write via **CDC**: Debezium reads Quarry's binlog and publishes row changes to Kafka; Keel consumes them. Zero changes to Quarry's code in the weeks before the freeze."},

		unit{Key: "outbox", By: researcher, Type: model.TypeIntention,
			Purpose: "Choose how Quarry's writes reach Keel during dual-write", Task: "KEEL-70",
			Score: 0.76, Reasoning: "The pattern is standard; the Quarry change is small but not zero.",
			Evidence:    []string{"prototype branch quarry/outbox-relay, 140 lines"},
			Assumptions: []string{"Quarry's payment writes all go through LedgerService.post"},
			Contradicts: "cdc", Conflict: model.ConflictStrategic,
			Why: "Dual-write through CDC on Quarry's binlog, or a transactional outbox written by Quarry itself?",
			Content: `
Dual-write via a **transactional outbox** in Quarry: the ledger event is written in the same MySQL
transaction as the payment, and a relay ships it to Kafka.

´´´sql
CREATE TABLE ledger_outbox (
  id          BIGINT AUTO_INCREMENT PRIMARY KEY,
  payment_id  CHAR(26)     NOT NULL,
  event_type  VARCHAR(64)  NOT NULL,
  payload     JSON         NOT NULL,
  created_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  relayed_at  DATETIME(6)  NULL,
  KEY relay_queue (relayed_at, id)
);
´´´

CDC would couple Keel to Quarry's *table layout* — fourteen tables, three of them with
soft-delete flags — instead of to events we define. Events are the contract; rows are an accident.`},

		decide{Conflict: "outbox", By: analyst, Strategy: model.Vote,
			Rationale: "Both designs work and both sides carry real risk (schema coupling against touching Quarry before the freeze). It is an architecture choice the leads will live with for the whole migration; putting it to them."},
		ballot{Conflict: "outbox", By: leadTomas, Choice: "B",
			Rationale: "Outbox. We want Keel to consume events we own, not reverse-engineer fourteen tables."},
		ballot{Conflict: "outbox", By: leadPriya, Choice: "A",
			Rationale: "CDC. Every line changed in Quarry this close to the freeze is a line I have to get through change control."},
		ballot{Conflict: "outbox", By: leadKenji, Choice: "B",
			Rationale: "Outbox. 140 lines in one service is a smaller risk than a pipeline that breaks on the next schema change."},
	}
}

// warmStandby: how long Quarry stays warm after cutover; 1–1, waiting for
// the third lead.
func warmStandby() []act {
	return []act{
		unit{Key: "warm-30", By: sre, Type: model.TypeIntention,
			Purpose: "Decide how long Quarry stays warm after cutover", Task: "KEEL-155",
			Score: 0.78, Reasoning: "Month-end close and the first chargeback cycle both land inside 30 days.",
			Evidence: []string{"finance calendar: month-end close on day 6 after cutover"},
			Content: `
Keep Quarry **warm and write-capable for 30 days** after cutover:

- the first month-end close runs on Keel on day 6;
- the first full chargeback cycle lands between days 10 and 25;
- the first scheme fee invoice arrives around day 28.

Until those three have passed on Keel, Quarry is our only real rollback target.`},

		unit{Key: "warm-7", By: strategist, Type: model.TypeDecision,
			Purpose: "Decide how long Quarry stays warm after cutover", Task: "KEEL-155",
			Score: 0.7, Reasoning: "Cost figures from the infra budget; the rollback value after day 7 is my judgement.",
			Evidence:    []string{"infra budget sheet, Q4"},
			Assumptions: []string{"a rollback after day 7 would be a forward-fix anyway"},
			Contradicts: "warm-30", Conflict: model.ConflictStrategic,
			Why: "Keep Quarry warm 30 days (through month-end and the first chargeback cycle) or 7 days plus a read-only snapshot?",
			Content: `
Keep Quarry warm for **7 days**, then take a read-only snapshot.

| Warm period | Infra | On-call (two stacks) | Total |
|---|---:|---:|---:|
| 7 days | $4.2k | $3.1k | **$7.3k** |
| 30 days | $18.0k | $13.4k | **$31.4k** |

After a week of Keel-only writes, a rollback means replaying a week of money movements into a
system nobody has touched — that is a forward-fix in all but name.`},

		decide{Conflict: "warm-7", By: planner, Strategy: model.Vote,
			Rationale: "Both are defensible; the difference is risk appetite against cost, which is the leads' call rather than a rule's. Opening a vote."},
		ballot{Conflict: "warm-7", By: leadTomas, Choice: "A",
			Rationale: "Thirty days. Month-end close is on day 6 — I want a real rollback target until finance has signed it off."},
		ballot{Conflict: "warm-7", By: leadKenji, Choice: "B",
			Rationale: "Seven days plus the snapshot covers chargeback lookups. Two warm stacks for a month is an on-call load we cannot staff."},
	}
}

// cohortOrder: which region goes first; the operator opens the vote, one
// lead has voted.
func cohortOrder() []act {
	return []act{
		unit{Key: "us-first", By: planner, Type: model.TypeDecision,
			Purpose: "Order the migration cohorts by region", Task: "KEEL-141",
			Score: 0.68, Reasoning: "Soak time before Black Friday matters most where the volume is.",
			Content: "Migrate **US merchants first**: 68 % of volume, and they get the longest soak on Keel before Black Friday."},

		unit{Key: "eu-first", By: analyst, Type: model.TypeFinding,
			Purpose: "Order the migration cohorts by region", Task: "KEEL-141",
			Score: 0.73, Reasoning: "Volume and settlement mix from the Q3 merchant report.",
			Evidence:    []string{"Q3 merchant report: EU 14 % of volume, single acquirer, SEPA only"},
			Contradicts: "us-first", Conflict: model.ConflictPriority,
			Why: "First cohort: the US (most volume, longest soak) or the EU (smallest blast radius, no FX)?",
			Content: `
Migrate **EU merchants first**:

- 14 % of volume — the smallest blast radius that still exercises every flow;
- one acquirer and SEPA-only settlement, so **no cross-currency** payments while the FX rounding
  question is open;
- EU business hours end before the US peak, so a bad night is caught before most money moves.`},

		decide{Conflict: "eu-first", By: Operator, Strategy: model.Vote,
			Rationale: "The planner holds authority over priority conflicts and wrote one side. The leads carry the on-call for whichever region goes first; they vote."},
		ballot{Conflict: "eu-first", By: leadPriya, Choice: "B",
			Rationale: "EU first. Keeping FX out of the first cohort is worth more than extra soak time for the US."},
	}
}

// settledMeaning: what "settled" means in the SLO; the vote is open and
// nobody has voted yet.
func settledMeaning() []act {
	return []act{
		unit{Key: "settled-acquirer", By: analyst, Type: model.TypeFinding,
			Purpose: "Define the payout SLO's measurement point", Task: "KEEL-170",
			Score: 0.76, Reasoning: "The last event we observe ourselves; anything later depends on merchants' banks.",
			Content: "For the payout SLO, a payment is **settled** when the acquirer's settlement file is ingested — the last event we observe ourselves. On that definition we are at 99.2 % within one business day."},

		unit{Key: "settled-bank", By: researcher, Type: model.TypeFinding,
			Purpose: "Define the payout SLO's measurement point", Task: "KEEL-170",
			Score: 0.69, Reasoning: "Bank arrival is estimated from merchant-reported data for a sample, not observed for all.",
			Evidence:    []string{"launch copy: \"settled in 1 business day\"", "merchant survey, 212 replies"},
			Contradicts: "settled-acquirer", Conflict: model.ConflictInterpretive,
			Why: "Does \"settled in 1 business day\" mean the acquirer's file is in, or the money is in the merchant's bank?",
			Content: `
> Settled in 1 business day.
> — Keel launch copy, draft 4

Merchants read "settled" as *money in my bank account*. Measured there, only **91 %** of payouts
make it within one business day — the SEPA batch cut-off moves the rest. If the SLO measures the
acquirer file, we will report 99.2 % while one merchant in eleven experiences a miss.`},

		decide{Conflict: "settled-bank", By: strategist, Strategy: model.Vote,
			Rationale: "This is what we promise merchants, not a fact to be measured; the leads should choose the definition the SLO and the launch copy will share."},
	}
}
