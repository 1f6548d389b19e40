package demo

import "arbiter/model"

// webhookRetries: a stale config read, corrected; last_write_wins.
func webhookRetries() []act {
	return []act{
		unit{Key: "retry-3", By: dataEng, Type: model.TypeObservation,
			Purpose: "Record Quarry's webhook retry policy so Keel can match it", Task: "KEEL-57",
			Score: 0.7, Reasoning: "Read from the webhook service's config in the monorepo.",
			Evidence: []string{"quarry/config/webhooks.yml"},
			Content:  "Quarry retries failed merchant webhooks **3 times, 60 s apart**, then gives up. Keel must match."},

		unit{Key: "retry-8", By: researcher, Type: model.TypeCorrection,
			Purpose: "Correct the recorded webhook retry policy", Task: "KEEL-57",
			Score: 0.86, Reasoning: "Read from the config deployed in production, confirmed against last week's delivery logs.",
			Evidence:    []string{"quarry/config/webhooks.yml @ main (2023 change)", "delivery log: merchant 4412, 8 attempts on 14 Sep"},
			Assumptions: []string{"main is what runs in production"},
			Contradicts: "retry-3", Conflict: model.ConflictFactual,
			Why: "Webhook retries: 3 fixed attempts (old config) or 8 with exponential backoff (current config)?",
			Content: `
Correction: Quarry retries webhooks **8 times with exponential backoff** — 1, 2, 4, 8, 16, 32, 64
and 128 minutes, about 4 h 15 m in all. The 3 × 60 s policy is the 2019 file that was moved to
´webhooks.legacy.yml´ in 2023 and no longer loads.`},

		decide{Conflict: "retry-8", By: planner, Strategy: model.LastWriteWins, Winner: "retry-8",
			Rationale: "The later unit is an explicit correction read from the config that production loads; the earlier one read a file that is no longer used. Last write wins, and here the last write is also the right one."},
	}
}

// loadTestLatency: a measurement against an extrapolation;
// confidence_weighted keeps the measurement though it is the older unit.
func loadTestLatency() []act {
	return []act{
		unit{Key: "lt-measured", By: sre, Type: model.TypeFinding,
			Purpose: "Report Keel's write latency under the planned peak load", Task: "KEEL-88",
			Question: "Does Keel hold p99 under 250 ms at 2× Black Friday peak?",
			Score:    0.9, Reasoning: "30-minute sustained run on production-sized hardware with a replayed Black Friday mix.",
			Evidence:    []string{"load test run #41 (k6), Grafana snapshot keel-lt-41", "Postgres 16 on db-r6i.8xl, same as production"},
			Assumptions: []string{"the replayed mix matches this year's traffic"},
			Content: `
Load test **#41**: 3,700 ledger writes/s sustained for 30 minutes.

| Percentile | Write latency |
|---|---:|
| p50 | 9 ms |
| p95 | 21 ms |
| p99 | 38 ms |
| p99.9 | 112 ms |

No lock waits over 50 ms; autovacuum kept up. Comfortably inside the 250 ms gate.`},

		unit{Key: "lt-extrapolated", By: researcher, Type: model.TypeAssumption,
			Purpose: "Flag a latency risk before the dual-write phase", Task: "KEEL-88",
			Score: 0.45, Reasoning: "Extrapolated from a vendor benchmark, not measured on Keel.",
			Evidence:    []string{"vendor benchmark: Postgres, 3-index append table, 2,000 tps"},
			Assumptions: []string{"latency grows linearly with the number of secondary indexes"},
			Contradicts: "lt-measured", Conflict: model.ConflictFactual,
			Why:     "Keel's p99 write latency at 3,700/s: 38 ms measured, or above 120 ms as extrapolated from a vendor benchmark",
			Content: "Keel's p99 write latency will probably exceed **120 ms** at 3,700 writes/s: the journal table carries three secondary indexes, and the vendor benchmark already shows 70 ms at 2,000/s with one."},

		decide{Conflict: "lt-extrapolated", By: analyst, Strategy: model.ConfidenceWeighted, Winner: "lt-measured",
			Rationale: "A 30-minute measurement on production hardware (0.90) against an extrapolation from someone else's benchmark (0.45). Confidence-weighted keeps the measurement; last-write-wins would have kept the guess."},
	}
}

// latencyMixUp: two numbers about two different endpoints; dismissed.
func latencyMixUp() []act {
	return []act{
		unit{Key: "p99-authorize", By: sre, Type: model.TypeObservation,
			Purpose: "Track the Phase 1 latency gate during shadow", Task: "KEEL-90",
			Score: 0.85, Reasoning: "Seven days of shadow traffic, server-side histograms.",
			Evidence: []string{"Prometheus: keel_http_request_duration_seconds{route=\"/v2/authorize\"}"},
			Content:  "Shadow p99 for ´POST /v2/authorize´ over the past week: **180 ms**."},

		unit{Key: "p99-capture", By: researcher, Type: model.TypeFinding,
			Purpose: "Check the API latency the merchants will see", Task: "KEEL-90",
			Score: 0.75, Reasoning: "Measured from the synthetic merchant in eu-west-1, client side.",
			Evidence:    []string{"synthetic merchant probe, 2,400 calls"},
			Contradicts: "p99-authorize", Conflict: model.ConflictFactual,
			Why: "Keel's API p99: 180 ms (shadow, server side) or 420 ms (synthetic merchant, client side)?",
			Content: `
Keel's API p99 is **420 ms** from the synthetic merchant — far over the 250 ms gate.

Measured on ´POST /v2/payments/{id}/capture´, which includes fetching the 3DS result.`},

		decide{Conflict: "p99-capture", By: analyst, Strategy: model.Dismiss,
			Rationale: "Not a contradiction: one figure is /v2/authorize measured server side, the other /v2/payments/{id}/capture measured client side with a 3DS fetch. Both stand; the 250 ms gate applies to authorize only. Capture latency gets its own line in the dashboard."},
	}
}

// fraudScoring: the vendor pitch against the in-house rules; the side with
// more support wins evidence_count though it is the older unit.
func fraudScoring() []act {
	return []act{
		unit{Key: "fraud-inhouse", By: security, Type: model.TypeDecision,
			Purpose: "Choose the fraud scoring used at cutover", Task: "KEEL-120",
			Score: 0.74, Reasoning: "Changing the ledger and the fraud model in the same month doubles the unknowns.",
			Evidence:    []string{"fraud loss report, H1"},
			Assumptions: []string{"the vendor can run in shadow mode against Keel events"},
			Content: `
Launch Keel with the **in-house rules engine**. Run the vendor's ML scoring in shadow for 60 days,
then switch if it beats the rules on our own traffic.

One big change at a time.`},

		unit{Key: "fraud-vendor", By: strategist, Type: model.TypeDecision,
			Purpose: "Choose the fraud scoring used at cutover", Task: "KEEL-120",
			Score: 0.7, Reasoning: "The vendor's pilot numbers are strong; our own data on them is thin.",
			Evidence:    []string{"vendor pilot report: -23 % false declines"},
			Assumptions: []string{"the pilot's results carry over to our merchant mix"},
			Contradicts: "fraud-inhouse", Conflict: model.ConflictStrategic,
			Why:     "In-house rules at launch with the vendor in shadow, or the vendor's ML scoring from day one?",
			Content: "Switch to the vendor's ML scoring **at launch**: their pilot cut false declines by 23 %, worth roughly €1.1 M a year in recovered volume. Launch is the one moment every merchant expects change anyway."},

		unit{Key: "fraud-sample", By: analyst, Type: model.TypeFinding, Supports: []string{"fraud-inhouse"},
			Purpose: "Check how far the vendor's pilot result generalises", Task: "KEEL-120",
			Score: 0.8, Reasoning: "From the pilot's own appendix.",
			Evidence: []string{"vendor pilot report, appendix B"},
			Content:  "The vendor's −23 % was measured on a **US-only, card-not-present** sample. 44 % of our volume is EU card-present."},

		unit{Key: "fraud-features", By: dataEng, Type: model.TypeObservation, Supports: []string{"fraud-inhouse"},
			Purpose: "Confirm the rules engine works unchanged on Keel", Task: "KEEL-120",
			Score: 0.9, Reasoning: "Checked the event schema against the rules engine's input contract.",
			Content: "The rules engine's 37 input features are all present in Keel's ´PaymentAuthorised´ event; no adapter needed."},

		unit{Key: "fraud-latency", By: sre, Type: model.TypeObservation, Supports: []string{"fraud-inhouse"},
			Purpose: "Measure what the vendor call costs at authorisation", Task: "KEEL-120",
			Score: 0.75, Reasoning: "Sandbox numbers; production could be better or worse.",
			Content: "The vendor call adds **90–140 ms** to authorisation p99 from our eu-west region (sandbox)."},

		unit{Key: "fraud-peers", By: researcher, Type: model.TypeFinding, Supports: []string{"fraud-vendor"},
			Purpose: "Collect outside experience with ML fraud vendors", Task: "KEEL-120",
			Score: 0.55, Reasoning: "Two conversations, no data shared.",
			Content: "Two peer PSPs report 15–25 % fewer false declines after switching to ML scoring."},

		decide{Conflict: "fraud-vendor", By: planner, Strategy: model.EvidenceCount, Winner: "fraud-inhouse",
			Rationale: "Three supporting findings (sample bias, zero-adapter fit, vendor latency) against one (peer anecdotes). Evidence count keeps the in-house rules at launch; the vendor runs in shadow."},
	}
}

// retention: retention law against erasure law; synthesis.
func retention() []act {
	return []act{
		unit{Key: "keep-10y", By: security, Type: model.TypeConstraint,
			Purpose: "Fix the retention rule for ledger events", Task: "KEEL-133",
			Score: 0.85, Reasoning: "Scheme rules and tax law both ask for long retention of transaction records.",
			Evidence:    []string{"card scheme rules: dispute evidence", "national tax code: 10-year bookkeeping retention"},
			Assumptions: []string{"the event log is our book of record"},
			Content:     "Ledger events are **immutable** and kept **10 years**. No deletes, no rewrites — the event log is the book of record."},

		unit{Key: "erase", By: analyst, Type: model.TypeFinding,
			Purpose: "Check the retention rule against data-protection duties", Task: "KEEL-133",
			Score: 0.8, Reasoning: "Erasure volume from the DPO's tracker; the legal reading is the DPO's, not mine.",
			Evidence:    []string{"DPO erasure tracker: ≈40 requests/month", "GDPR Art. 17"},
			Contradicts: "keep-10y", Conflict: model.ConflictInterpretive,
			Why: "Immutable 10-year event retention against GDPR erasure of cardholder name and email",
			Content: `
We receive about **40 erasure requests a month**. Keel's events carry cardholder name, email and
billing address. An immutable 10-year log cannot honour them — so "no deletes" as written puts us
in breach the first time a cardholder asks.`},

		decide{Conflict: "erase", By: strategist, Strategy: model.Synthesis,
			Rationale: "Both obligations are real and neither rule outranks the other; the design can satisfy both by separating what must be kept from who it is about.",
			Synthesis: `
## Retention: keep the entries, shred the people

Both obligations stand. The event log stays immutable; personal data inside it is encrypted with a
per-cardholder key, and destroying that key is the erasure.

| Data | Stored as | Kept | On an erasure request |
|---|---|---|---|
| amounts, currencies, timestamps, merchant id | clear | 10 years | kept — not personal data |
| name, email, billing address | encrypted, per-cardholder key | 10 years (ciphertext) | key destroyed → unreadable |
| network token, BIN-6, last 4 | clear | 10 years | kept — needed for disputes |

- Per-cardholder keys live in the KMS, wrapped by a tenant key.
- Read models are rebuilt without the shredded fields within 24 h.
- sec-vega confirms with the QSA and the DPO that key destruction counts as erasure.`},
	}
}

// secretRotation: two priorities in the cutover week; the planner decides
// by authority.
func secretRotation() []act {
	return []act{
		unit{Key: "rotate", By: security, Type: model.TypeConstraint,
			Purpose: "Schedule the webhook signing secret rotation", Task: "KEEL-137",
			Score: 0.8, Reasoning: "26 months since the last rotation; policy says 12.",
			Evidence: []string{"secrets inventory: whsec_* last rotated 26 months ago"},
			Content:  "Rotate all merchant webhook signing secrets **in the cutover week**, so Keel's signer starts with fresh keys and Quarry's never leave the old HSM partition."},

		unit{Key: "freeze", By: sre, Type: model.TypeConstraint,
			Purpose: "Keep the cutover window debuggable", Task: "KEEL-137",
			Score: 0.82, Reasoning: "Learned in the 3DS2 rollout, where a certificate renewal masked a routing bug for a day.",
			Evidence:    []string{"3DS2 rollout incident INC-2291"},
			Contradicts: "rotate", Conflict: model.ConflictPriority,
			Why:     "Rotate webhook secrets in the cutover week, or freeze all rotation from T−7 to T+7?",
			Content: "**No secret rotation from T−7 to T+7.** During cutover a signature failure must mean a migration bug, not a key change."},

		decide{Conflict: "freeze", By: planner, Strategy: model.Authority, Winner: "freeze",
			Rationale: "Planner's call on a priority conflict: the freeze stands. Rotation moves to T+14, once Quarry is read-only; its keys stay in the old partition until then, which meets the intent of the rotation without muddying the cutover."},
	}
}
