package demo

import "arbiter/model"

// reconDrift is the demo's showcase: the rules split. The later unit
// (last_write_wins) has the lower confidence and no support, so
// confidence_weighted and evidence_count pick the other side.
func reconDrift() []act {
	return []act{
		unit{Key: "recon-ok", By: analyst, Type: model.TypeFinding,
			Purpose: "Report whether the Phase 0 reconciliation gate is met", Task: "KEEL-112",
			Question: "Is shadow drift under the 0.01 % gate?",
			Score:    0.88, Reasoning: "Fourteen consecutive nightly runs, row counts cross-checked against the binlog, and every unmatched entry explained.",
			Evidence: []string{"recon job runs #212–#225, all green", "row counts cross-checked against Quarry binlog positions",
				"498 of 498 breaks traced to day-boundary captures"},
			Assumptions: []string{"the recon query covers every class of settled transaction", "Quarry's settled amounts are correct"},
			Content: `
## Shadow reconciliation: the Phase 0 gate is met

Over the 14-day shadow window (weeks 38–40) Keel and Quarry agree to within **0.004 %** of settled
value — well under the 0.01 % exit gate.

| Days | Journal entries | Unmatched | Drift (value) |
|---|---:|---:|---:|
| 1–7 | 6,412,880 | 211 | 0.003 % |
| 8–14 | 6,958,301 | 287 | 0.005 % |
| **All** | **13,371,181** | **498** | **0.004 %** |

All 498 unmatched entries are timing breaks — authorised at 23:59:5x, captured after the UTC day
boundary — and clear on the next run.

Method: a nightly full outer join of both ledgers on ´payment_id´, compared on settled amount.

´´´sql
SELECT coalesce(q.payment_id, k.payment_id) AS payment_id,
       q.settled_minor AS quarry, k.settled_minor AS keel
FROM quarry_settled q
FULL OUTER JOIN keel_settled k USING (payment_id)
WHERE q.settle_date = :day
  AND q.currency = q.settlement_currency
  AND q.settled_minor IS DISTINCT FROM k.settled_minor;
´´´

**Recommendation:** declare the Phase 0 exit and start dual-write on Monday.`},

		unit{Key: "recon-runs", By: dataEng, Type: model.TypeObservation, Supports: []string{"recon-ok"},
			Purpose: "Confirm the recon job itself is healthy", Task: "KEEL-112",
			Score: 0.9, Reasoning: "Job metadata, not a judgement.",
			Content: "Recon job: **14/14** nightly runs green, none retried; row counts match binlog position 4,771,203,118 exactly."},

		unit{Key: "recon-audit", By: researcher, Type: model.TypeFinding, Supports: []string{"recon-ok"},
			Purpose: "Get an independent check of the shadow reconciliation", Task: "KEEL-112",
			Score: 0.8, Reasoning: "External sample, but drawn by us from the recon output.",
			Evidence: []string{"Halden & Co. sample letter, week 40"},
			Content:  "The external auditor's sample — 2,000 random payments from the shadow window — matched Keel to the minor unit. No exceptions."},

		unit{Key: "recon-fx", By: sre, Type: model.TypeObservation,
			Purpose: "Check whether the Phase 0 reconciliation covers every settled class", Task: "KEEL-112",
			Score: 0.64, Reasoning: "A single day re-run; FX rates for that day were rebuilt from the rate cache, not the acquirer's file, so the 1.84 % could be off by a few tenths.",
			Evidence:    []string{"re-run of the recon for day 12 without the currency filter", "diff of rounding in keel/money/convert.go against Quarry's FxService"},
			Assumptions: []string{"day 12 is representative of the window", "the rebuilt FX rates match what the acquirer applied"},
			Contradicts: "recon-ok", Conflict: model.ConflictFactual,
			Why: "The 0.004 % drift that clears the Phase 0 gate excludes cross-currency and partial-capture payments; counted in, drift is 0.31 %. Dual-write starts Monday on whichever figure counts.",
			Content: `
## The 0.004 % leaves out the payments most likely to drift

The recon query filters on ´q.currency = q.settlement_currency´. That silently drops every
**cross-currency** payment and every **partial capture** whose settlement row is written in the
acquirer's currency. Re-running day 12 without the filter:

| Class | Share of volume | Drift (value) |
|---|---:|---:|
| same currency, full capture | 81.6 % | 0.004 % |
| cross-currency (FX at settlement) | 12.9 % | 1.84 % |
| partial captures | 5.5 % | 0.92 % |
| **all settled** | 100 % | **0.31 %** |

Most of the FX drift is rounding: Keel rounds each leg half-even, Quarry rounds half-up *after*
conversion. The partial-capture drift looks like Keel releasing the uncaptured remainder a day early.

> A gate that only measures the easy 82 % is not a gate.
> — postmortem of the 2022 payout incident

I would hold Phase 0 open until the FX rounding matches and the query covers every class. Note that
the auditor's sample was drawn from the recon output, so it inherits the same filter.`},

		decide{Conflict: "recon-fx", By: planner, Strategy: model.HumanEscalation,
			To: Operator, Deadline: "2d", Fallback: model.FallbackRework,
			ProposeSynthesis: `
## Phase 0 gate: met for same-currency payments only

Same-currency full captures (81.6 % of volume) drift **0.004 %**, under the 0.01 % gate: they may
start dual-write on Monday. Cross-currency and partial-capture payments stay in Phase 0 until Keel
rounds FX like Quarry and the recon query counts every settled class; the gate is re-measured then.`,
			Rationale: "The rules split: last_write_wins picks sre-atlas's later re-run, while confidence_weighted (0.88 vs 0.64) and evidence_count (2 vs 0) pick ana-quill's report. None of them touches the real question — does the Phase 0 gate measure every settled class, or only same-currency full captures? That is the definition of the gate, which people own, and dual-write starts Monday on the answer."},
	}
}

// cutoverApproach: every rule agrees, and it still needs a person.
func cutoverApproach() []act {
	return []act{
		unit{Key: "bigbang", By: strategist, Type: model.TypeDecision,
			Purpose: "Propose the cutover approach for board sign-off", Task: "KEEL-140",
			Score: 0.72, Reasoning: "The commercial case is strong; the rollback time comes from one rehearsal on staging, not production.",
			Evidence:    []string{"contract review: 2 enterprise merchants with 30-day change-notice clauses", "staging rollback drill: 22 min"},
			Assumptions: []string{"the Phase 2 gate is met on time", "a production rollback behaves like the staging one"},
			Content: `
## Cutover: one night, every merchant

**Proposal:** switch every merchant from Quarry to Keel in a single four-hour window, 01:00–05:00
UTC on the Sunday of week 44.

### Why one night
Dual-writing for three weeks means three weeks of two sources of truth. Every support ticket, every
payout dispute and every finance close has to start with *which ledger?* Our two largest merchants
(about 31 % of volume) have 30-day notice clauses for any change in settlement behaviour: one date
gives them one notice, one test window and one sign-off.

### What makes it safe
1. Phase 2 will have proven Keel's payout files byte-identical for five days.
2. Rollback is a switch back to Quarry, rehearsed at 22 minutes.
3. Quarry stays warm and write-capable for the whole rollback period.

### What it costs if I am wrong
Up to four hours of degraded authorisations for everyone. I judge that smaller than three weeks of
split-brain finance operations.`},

		unit{Key: "bigbang-finance", By: researcher, Type: model.TypeFinding, Supports: []string{"bigbang"},
			Purpose: "Estimate what a long dual-ledger period costs finance", Task: "KEEL-140",
			Score: 0.6, Reasoning: "A survey of expectations, not a measurement.",
			Content: "Finance ops survey: 9 of 11 staff expect reconciliation work to **double** during any dual-ledger period."},

		unit{Key: "cohorts", By: sre, Type: model.TypeIntention,
			Purpose: "Propose a cutover with a smaller blast radius", Task: "KEEL-140",
			Score: 0.81, Reasoning: "Cohort routing already exists in the gateway and carried the 3DS2 rollout; the abort thresholds are the plan's own gates.",
			Evidence:    []string{"gateway merchant_flags routing, 3DS2 rollout 2024", "dual-write overhead measured at +11 ms p99"},
			Assumptions: []string{"finance can reconcile two ledgers for three weeks", "enterprise merchants accept a cohort date instead of a single night"},
			Contradicts: "bigbang", Conflict: model.ConflictStrategic,
			Why: "One four-hour cutover night for all merchants, or four risk-tiered cohorts over about three weeks with per-cohort rollback?",
			Content: `
## Cut over by cohort, not by night

Move merchants in four cohorts by risk tier. Keel becomes authoritative one cohort at a time while
the rest stay dual-written:

´´´yaml
rollout:
  routing_key: merchant_id
  cohorts:
    - name: internal-and-staff
      share: 0.5%
      soak: 48h
    - name: tier-3-low-volume
      share: 5%
      soak: 72h
    - name: tier-2
      share: 25%
      soak: 5d
    - name: tier-1-and-enterprise
      share: 100%
      soak: 7d
  abort_if:
    recon_drift_pct: "> 0.01"
    auth_error_rate: "> 0.3%"
    p99_authorize_ms: "> 250"
´´´

A bad night in a big-bang cutover hits **every** merchant at once; a bad cohort hits 5 % of them and
rolls back with a flag. The 22-minute drill ran on staging with no live traffic — nobody here has
rolled back a ledger under load.`},

		unit{Key: "cohorts-flags", By: dataEng, Type: model.TypeObservation, Supports: []string{"cohorts"},
			Purpose: "Check the gateway can route per merchant", Task: "KEEL-140",
			Score: 0.85, Reasoning: "Same mechanism, already in production.",
			Content: "Gateway ´merchant_flags´ routing carried the 3DS2 rollout: 4 cohorts, no incidents, a flag flip propagates in under 5 s."},

		unit{Key: "cohorts-scope", By: security, Type: model.TypeFinding, Supports: []string{"cohorts"},
			Purpose: "Judge the cutover options for PCI evidence", Task: "KEEL-140",
			Score: 0.7, Reasoning: "Based on how the QSA reviewed the 3DS2 change.",
			Content: "Per-merchant routing keeps each merchant's card flow in exactly one system at any moment — simpler to evidence to the QSA than a global switch with a shared rollback."},

		decide{Conflict: "cohorts", By: security, Strategy: model.HumanEscalation,
			Rationale: "Every rule favours the cohort plan (later, 0.81 vs 0.72, 2 supports vs 1), but authority over strategic conflicts lies with strat-orion, who wrote the other side, and the one-night plan rests on contract notice terms with two merchants that no rule here can weigh. Someone has to trade three weeks of split-brain finance against blast radius; that is a person's call."},
	}
}

// pciScope: an interpretive conflict; no role holds authority over it.
func pciScope() []act {
	return []act{
		unit{Key: "scope-in", By: security, Type: model.TypeFinding,
			Purpose: "Decide the PCI scope of Keel's event store", Task: "KEEL-131",
			Question: "Are payment events part of the cardholder data environment?",
			Score:    0.83, Reasoning: "Follows the segmentation logic our QSA applied in the 2024 assessment; the BIN-8 point is a plain reading of the truncation rule.",
			Evidence:    []string{"2024 ROC, scoping section: connected-to systems", "event schema keel.payments.v3"},
			Assumptions: []string{"the QSA applies the same scoping logic this year"},
			Content: `
## Keel's event store is in PCI DSS scope

Each ´PaymentAuthorised´ event carries the network token, the first 8 and last 4 digits, and the
token requestor id. None of that is a PAN. But the event consumers include the **detokenisation
worker** (recurring charges), which calls the vault with the token and gets the PAN back in memory.

- Any system that can trigger detokenisation is *connected to* the CDE.
- The event store feeds that worker directly; nothing segments them.
- First 8 + last 4 exceeds the first-6/last-4 truncation our QSA accepted.

So the event store, its backups and the Kafka topics carrying payment events come into scope for
PCI DSS v4.0 requirements 3, 7, 8 and 10. Budget about **six weeks** of control work.`},

		unit{Key: "scope-out", By: researcher, Type: model.TypeFinding,
			Purpose: "Decide the PCI scope of Keel's event store", Task: "KEEL-131",
			Score: 0.67, Reasoning: "A reading of the public guidance; I have not seen how our QSA reads connected-to for event streams.",
			Evidence:    []string{"PCI SSC Information Supplement: Tokenization Guidelines (2011)", "Keel network policy: only detok-worker may reach the vault"},
			Assumptions: []string{"network tokens are domain-restricted for every scheme we use"},
			Contradicts: "scope-in", Conflict: model.ConflictInterpretive,
			Why: "Does holding tokens and feeding the detokenisation worker put the event store in PCI scope (six weeks of controls), or do tokens keep it out?",
			Content: `
## Tokens keep the event store out of scope

The council's tokenisation guidance treats systems that hold only tokens as candidates for being
**out of scope**, if they cannot recover the PAN and are segmented from the tokenisation system.
Keel's event store:

1. never holds a PAN, encrypted or not;
2. holds network tokens, which are domain-restricted and useless outside our merchant ids;
3. reaches the vault only through the detokenisation worker, which is already in scope and sits
   behind its own network policy.

Scoping the event store in because a downstream consumer can detokenise would pull in every service
that reads a token — the gateway, the dashboard, the reporting warehouse. That reading proves too much.

The BIN-8 point is fair and cheap: truncate to BIN-6 in the event schema.`},

		unit{Key: "scope-netpol", By: dataEng, Type: model.TypeObservation, Supports: []string{"scope-out"},
			Purpose: "Verify the vault's network segmentation", Task: "KEEL-131",
			Score: 0.9, Reasoning: "Read from the live cluster, not the design doc.",
			Content: "´kubectl get networkpolicy -n vault´: exactly one ingress rule, from ´detok-worker´. Nothing else can reach the vault."},

		decide{Conflict: "scope-out", By: strategist, Strategy: model.HumanEscalation,
			Rationale: "Interpretive conflicts have no designated authority in this field, and the rules would be arbitrary here (later and better supported on one side, more confident on the other). It turns on how our QSA reads connected-to for an event stream, and six weeks of control work hang on it. Sending it to someone who can ask the QSA."},
	}
}

// idempotencyBug: the planner's sprint against a correctness bug; the
// planner holds authority over priority conflicts and is a party.
func idempotencyBug() []act {
	return []act{
		unit{Key: "sprint14", By: planner, Type: model.TypeDecision,
			Purpose: "Set sprint 14 priorities", Task: "KEEL-160",
			Score: 0.7, Reasoning: "The dashboard is a promise to our top merchants; the collision was judged theoretical.",
			Evidence:    []string{"account management: dashboard v2 promised to the top 20 merchants for week 43"},
			Assumptions: []string{"an idempotency collision needs two identical requests in the same millisecond"},
			Content: `
**Sprint 14 (weeks 41–42), in order**

1. Merchant dashboard v2 — payout timeline (promised to the top 20 merchants)
2. Dual-write switch-on for cohort 0
3. Settlement-file parity fixes (3 open)
4. Idempotency-key hardening — **moved to sprint 16**; a collision needs two identical requests in
   the same millisecond and has never been seen in production.`},

		unit{Key: "idem-bug", By: sre, Type: model.TypeObservation,
			Purpose: "Show that the idempotency collision happens on real traffic", Task: "KEEL-160",
			Score: 0.9, Reasoning: "Reproduced locally with two concurrent captures; the shadow cases are in the logs with request ids.",
			Evidence:    []string{"shadow logs: requests 7f3a…, 91c0…, c44e…", "repro in keel/capture/idem_test.go"},
			Assumptions: []string{"production retry rates match shadow"},
			Contradicts: "sprint14", Conflict: model.ConflictPriority,
			Why: "Merchant dashboard first with idempotency moved to sprint 16, or fix the double-capture bug before any cohort takes real traffic?",
			Content: `
## The idempotency collision is real: 3 double captures in shadow

Keel builds the idempotency key from the request body, not from the client's ´Idempotency-Key´ header:

´´´go
func idemKey(r CaptureRequest) string {
	// Two different captures of the same amount for the same merchant
	// in the same second share a key, so a retry of one can be applied
	// to the other.
	return fmt.Sprintf("%s:%d:%d", r.MerchantID, r.AmountMinor, r.At.Unix())
}
´´´

A key lives for one **second**, not one millisecond. In shadow it produced **3 double captures**
(€1,412.60 in total) that Quarry did not make. At Black Friday volume, expect a few hundred a day.

This has to ship before cohort 0 takes real money — ahead of the dashboard.`},

		unit{Key: "idem-crosscheck", By: dataEng, Type: model.TypeObservation, Supports: []string{"idem-bug"},
			Purpose: "Cross-check the double captures against Quarry", Task: "KEEL-160",
			Score: 0.88, Reasoning: "Matched by payment id in both ledgers.",
			Content: "All three merchants sent one capture each; Keel applied a client retry to the wrong capture. Quarry booked each payment once."},

		decide{Conflict: "idem-bug", By: analyst, Strategy: model.HumanEscalation,
			To: Operator, Deadline: "8h",
			Rationale: "All three rules side with the SRE, but the planner holds authority over priority conflicts and wrote the plan being overruled. The trade — a promise to twenty merchants against a known money-moving bug — belongs to someone who can move the promise. Escalating."},
	}
}

// peakLoad: two honest counts of different things, each a revision of
// the planner's earlier estimate, so the screen can show them three ways
// against it: data-wren changes a list item, res-iris a table cell, and
// both change the headline sentence differently. The factual authority
// escalates because the raw data is gone.
func peakLoad() []act {
	return []act{
		unit{Key: "peak-plan", By: planner, Type: model.TypeAssumption,
			Purpose: "Set the load-test target from last year's peak", Task: "KEEL-85",
			Score: 0.55, Reasoning: "Projected from 2024's peak and this year's growth; nobody has counted 2025 yet.",
			Assumptions: []string{"2025 grew like the first three quarters"},
			Content: `
## Load-test target for Keel

Black Friday 2025 peaked at about 3,000 authorisations/s, so the load target is 6,000/s.

- target: 2× last year's peak
- source: capacity plan v1, projected from 2024 growth
- ramp: 10 minutes to full rate

| Test | Rate | Duration |
|---|---:|---:|
| soak | 0.5× target | 4 h |
| peak | 1× target | 30 min |

´k6 run --env PROFILE=peak scripts/auth-peak.js´`},

		unit{Key: "peak-4200", By: researcher, Type: model.TypeFinding, Supersedes: []string{"peak-plan"},
			Purpose: "Set the load-test target from last year's peak", Task: "KEEL-85",
			Score: 0.78, Reasoning: "Read off the production gateway dashboard for the whole Black Friday.",
			Evidence: []string{"Grafana: gateway / auth_requests_total, 1-minute rate"},
			Content: `
## Load-test target for Keel

Black Friday 2025 peaked at 4,200 authorisations/s on the gateway dashboard (1-minute max, 19:42 UTC) and held above 3,500/s for 40 minutes, so the load target is 8,400/s.

- target: 2× last year's peak
- source: capacity plan v1, projected from 2024 growth
- ramp: 10 minutes to full rate

| Test | Rate | Duration |
|---|---:|---:|
| soak | 0.5× target | 4 h |
| peak | 1× target | 45 min |

´k6 run --env PROFILE=peak scripts/auth-peak.js´`},

		unit{Key: "peak-1850", By: dataEng, Type: model.TypeFinding, Supersedes: []string{"peak-plan"},
			Purpose: "Count distinct authorisations at last year's peak", Task: "KEEL-85",
			Score: 0.74, Reasoning: "Counted from Quarry's own table; the retry and 3DS exclusions are explicit in the query.",
			Evidence:    []string{"query on the Quarry read replica, 2025-11-28: 1,852 first attempts at 19:42:07"},
			Assumptions: []string{"attempt = 1 marks first attempts reliably"},
			Contradicts: "peak-4200", Conflict: model.ConflictFactual,
			Why: "Last Black Friday's peak: 4,200 authorisations/s (gateway requests) or 1,850/s (distinct first attempts)? The load target is 8,400/s or 3,700/s on the answer.",
			Content: `
## Load-test target for Keel

Black Friday 2025 peaked at 1,850 distinct authorisations/s, so the load target is 3,700/s, which load test #41 already passed.

- target: 2× last year's peak
- source: Quarry's authorisations table, first attempts only (no gateway retries, no 3DS polls)
- ramp: 10 minutes to full rate

| Test | Rate | Duration |
|---|---:|---:|
| soak | 0.5× target | 4 h |
| peak | 1× target | 30 min |

´k6 run --env PROFILE=peak scripts/auth-peak.js´`},

		unit{Key: "peak-retries", By: sre, Type: model.TypeObservation, Supports: []string{"peak-1850"},
			Purpose: "Explain the gap between the two peak figures", Task: "KEEL-85",
			Score: 0.7, Reasoning: "From the fraud service's latency graph for that evening.",
			Content: "At 19:40 on Black Friday the fraud service's p99 hit 2.8 s; the gateway retries after 1.5 s, so requests roughly doubled in that window."},

		decide{Conflict: "peak-1850", By: analyst, Strategy: model.HumanEscalation,
			Deadline: "10h", Fallback: model.Fallback(model.EvidenceCount), Propose: "peak-1850",
			Rationale: "I hold authority over factual conflicts but cannot settle this one from the field: both figures are real counts of different things, the gateway's raw November logs have been rotated out, and the rules split (the later, supported count against the higher confidence). Both revise the planner's estimate; it decides whether we load-test at 3,700/s or 8,400/s. Escalating for someone who can get the acquirer's own count."},
	}
}

// binlogRetention: escalated for a person with production access, who
// then decides it by authority.
func binlogRetention() []act {
	return []act{
		unit{Key: "binlog-7d", By: dataEng, Type: model.TypeObservation,
			Purpose: "Record Quarry's point-in-time recovery window for the rollback plan", Task: "KEEL-152",
			Score: 0.75, Reasoning: "Read from the MySQL config in the infrastructure repo.",
			Evidence: []string{"infra/mysql/quarry.cnf"},
			Content:  "Quarry keeps **7 days** of binlogs (´binlog_expire_logs_seconds = 604800´): we can restore Quarry to any point in the last week if a rollback needs it."},

		unit{Key: "binlog-3d", By: sre, Type: model.TypeFinding,
			Purpose: "Check the recovery window against what production runs", Task: "KEEL-152",
			Score: 0.7, Reasoning: "Reconstructed from the August rebuild ticket; I no longer have shell access to the primary.",
			Evidence:    []string{"ticket OPS-4471: primary rebuilt from the small-disk profile"},
			Contradicts: "binlog-7d", Conflict: model.ConflictFactual,
			Why:     "Quarry's point-in-time recovery window: 7 days (repo config) or 3 days (primary rebuilt in August)?",
			Content: "Production keeps **3 days**: the primary was rebuilt in August from the *small-disk* profile, which sets 259200 s. The 7-day value in the repo is what staging runs."},

		decide{Conflict: "binlog-3d", By: planner, Strategy: model.HumanEscalation,
			Rationale: "The rules split (later vs more confident) and neither side has read the live primary. The rollback runbook depends on the answer; I'd rather a person with production access read the setting than let a tie-breaker guess."},

		decide{Conflict: "binlog-3d", By: Operator, Strategy: model.Authority, Winner: "binlog-3d",
			Rationale: "Checked on the primary myself: SHOW VARIABLES reports binlog_expire_logs_seconds = 259200. Three days. The rollback runbook must assume a 72-hour recovery window; the repo config is fixed in OPS-4502."},
	}
}
