// Package demo fills an empty field with a believable team at work: the
// Keel project, which moves Ledgerline's card payments off a 2014
// monolith onto a new ledger. Everything goes through the real rules
// (review.Service), so units, conflicts, events, notifications and epochs
// are exactly what a live field would hold.
package demo

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"arbiter/model"
	"arbiter/service/review"
)

// Operator is the id of the demo's human operator (authority 10).
const Operator = "ops-maya"

// Leads are the team leads: people of authority 6 and role "lead", the
// only eligible voters of the demo field.
var Leads = []string{"lead-priya", "lead-tomas", "lead-kenji"}

// Policy returns the policy the demo field is created with: the default
// level 3 governance, votes among the leads, and a designated role for
// each conflict type but interpretive ones (those only a person decides
// by authority). Escalations are routed to the lead who owns each kind of
// question — factual ones to the platform lead, interpretive ones to risk
// and compliance, strategic ones to payments engineering; priorities go
// to the operator — and owners decide what is routed to them. There is no
// default deadline: the story sets its own.
func Policy() model.Policy {
	p := model.DefaultPolicy()
	p.VoterRoles = []string{"lead"}
	p.AuthorityRoles = map[model.ConflictType]string{
		model.ConflictFactual:   "analyst",
		model.ConflictStrategic: "strategist",
		model.ConflictPriority:  "planner",
	}
	p.Owners = map[model.ConflictType]string{
		model.ConflictFactual:      leadKenji,
		model.ConflictInterpretive: leadPriya,
		model.ConflictStrategic:    leadTomas,
	}
	p.OwnersDecide = true
	return p
}

// StoryAge is how long before the field is created its story happens:
// the escalations' deadlines run from then, so that a field created now
// holds one escalation close to its deadline and one overdue.
const StoryAge = 9 * time.Hour

// Clock is the clock the demo's story runs on, given the clock of the
// moment the field is created (time.Now for arbiter demo): StoryAge
// earlier. With it, recon drift's escalation (to ops-maya, with
// plan-juno's proposal) has 1d 15h left, the peak-load one (to
// lead-kenji, 10h, then evidence_count) 1h — a tenth of its time — and
// the idempotency one (to ops-maya, 8h, no fallback) is an hour overdue.
func Clock(now func() time.Time) func() time.Time {
	return func() time.Time { return now().Add(-StoryAge) }
}

// The agents and people of the demo.
const (
	researcher = "res-iris"    // researcher, 4
	analyst    = "ana-quill"   // analyst, 6
	strategist = "strat-orion" // strategist, 6
	security   = "sec-vega"    // security-auditor, 6
	sre        = "sre-atlas"   // sre, 5
	planner    = "plan-juno"   // planner, 6
	dataEng    = "data-wren"   // data-engineer, 4
	leadPriya  = "lead-priya"  // lead (risk & compliance), 6
	leadTomas  = "lead-tomas"  // lead (payments engineering), 6
	leadKenji  = "lead-kenji"  // lead (platform), 6
)

// cast lists everyone who takes part, in the order they join the field.
func cast() []model.Agent {
	agent := func(id, role string, authority int, st model.AgentStatus) model.Agent {
		return model.Agent{ID: id, Role: role, Kind: model.KindAgent, Authority: authority, Status: st}
	}
	human := func(id, role string, authority int) model.Agent {
		return model.Agent{ID: id, Role: role, Kind: model.KindHuman, Authority: authority, Status: model.AgentIdle}
	}
	return []model.Agent{
		human(Operator, "operator", model.AuthorityHumanOperator),
		human(leadPriya, "lead", model.AuthoritySenior),
		human(leadTomas, "lead", model.AuthoritySenior),
		human(leadKenji, "lead", model.AuthoritySenior),
		agent(planner, "planner", model.AuthoritySenior, model.AgentWorking),
		agent(analyst, "analyst", model.AuthoritySenior, model.AgentWorking),
		agent(strategist, "strategist", model.AuthoritySenior, model.AgentWaiting),
		agent(security, "security-auditor", model.AuthoritySenior, model.AgentWorking),
		agent(sre, "sre", 5, model.AgentWorking),
		agent(researcher, "researcher", model.AuthorityStandard, model.AgentIdle),
		agent(dataEng, "data-engineer", model.AuthorityStandard, model.AgentWorking),
	}
}

// Populate fills an empty field with the demo. The story is written for
// Policy; on a field of another policy (a lower level, another quorum) the
// steps that policy refuses are left out, a decision becoming an
// escalation where one is still possible, so that the field holds what
// that policy would have let happen. It fails on a field that already has
// any of the demo's agents.
func Populate(ctx context.Context, svc *review.Service) error {
	p, err := svc.Policy(ctx)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	for _, a := range cast() {
		if _, err := svc.Register(ctx, a); err != nil {
			return fmt.Errorf("demo: register %s: %w", a.ID, err)
		}
	}
	base := svc.Clock()
	clock := &storyClock{base: base, ahead: -Prelude}
	svc.WithClock(clock.now)
	defer svc.WithClock(base)
	f := newField(svc, !reflect.DeepEqual(p, Policy()), p.DetectionSensitivity == Policy().DetectionSensitivity)
	f.clock = clock
	for _, scene := range story() {
		for _, a := range scene {
			if err := a.do(ctx, f); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
		}
	}
	return nil
}

// story is the whole demo, scene by scene, in the order it happens: the
// conflicts resolved over the days before (paced: each decided after the
// minutes or hours a team takes), then, StoryAge before now, the day
// whose conflicts still wait.
func story() [][]act {
	h, m := time.Hour, time.Minute
	return [][]act{
		kickoff(),
		paced(20*h, webhookRetries(), 47*m),                     // resolved: last_write_wins
		paced(18*h, loadTestLatency(), 2*h+10*m),                // resolved: confidence_weighted
		paced(9*h, latencyMixUp(), 25*m),                        // resolved: dismiss
		paced(14*h, dualWriteMechanism(), h, 40*m, 3*h, h+15*m), // resolved: a vote that reached quorum
		paced(16*h, fraudScoring(), 3*h+30*m),                   // resolved: evidence_count
		paced(20*h, retention(), 5*h),                           // resolved: synthesis
		paced(10*h, secretRotation(), 55*m),                     // resolved: authority (planner)
		{catchUp{}},                                             // StoryAge before now
		reconDrift(),                                            // escalated: the rules split
		cutoverApproach(),                                       // escalated
		pciScope(),                                              // escalated
		idempotencyBug(),                                        // escalated
		peakLoad(),                                              // escalated
		paced(0, binlogRetention(), 0, 35*m),                    // escalated, then decided by the operator
		rollbackQuestion(),                                      // a question and its answer
		warmStandby(),                                           // pending_vote, 1–1
		cohortOrder(),                                           // pending_vote, 1 ballot
		settledMeaning(),                                        // pending_vote, no ballots
		chargebackRate(),                                        // detected
		penTestTiming(),                                         // detected
		noticedByTheField(),                                     // detected by the field: nobody said so
	}
}
