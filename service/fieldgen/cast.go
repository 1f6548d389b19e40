package fieldgen

import (
	"arbiter/model"
	"arbiter/service/demo"
)

// Operator is the id of the generated field's first human operator: the
// person to open the review screen as.
const Operator = "ops-maya"

// Leads are the eligible voters of a generated field (role "lead").
var Leads = []string{"lead-priya", "lead-tomas", "lead-kenji", "lead-amara"}

// Policy is the governance a generated field is created with: the demo
// team's (votes among the leads, a role with the final say on every
// conflict type but interpretive ones), at scale — without recusal: the
// generator's leads and operators record units too, and vote and decide
// without looking at whose they are.
func Policy() model.Policy {
	p := demo.Policy()
	p.Recusal = false
	return p
}

// member is one agent of the cast and how much it records.
type member struct {
	model.Agent
	weight int // relative share of the units it records (0: records none)
}

// cast is everyone in a generated field, in registration order: two
// human operators, four leads, a session creator, senior and standard
// agents, and a few readers who never write.
func cast() []member {
	human := func(id, role string, authority, weight int) member {
		return member{model.Agent{ID: id, Role: role, Kind: model.KindHuman, Authority: authority, Status: model.AgentIdle}, weight}
	}
	agent := func(id, role string, authority, weight int, st model.AgentStatus) member {
		return member{model.Agent{ID: id, Role: role, Kind: model.KindAgent, Authority: authority, Status: st}, weight}
	}
	const std, sen = model.AuthorityStandard, model.AuthoritySenior
	w, i, o := model.AgentWorking, model.AgentIdle, model.AgentOffline
	return []member{
		human(Operator, "operator", model.AuthorityHumanOperator, 1),
		human("ops-rafael", "operator", model.AuthorityHumanOperator, 1),
		human(Leads[0], "lead", sen, 2),
		human(Leads[1], "lead", sen, 2),
		human(Leads[2], "lead", sen, 2),
		human(Leads[3], "lead", sen, 2),
		agent("coord-atlas", "coordinator", model.AuthoritySessionCreator, 3, w),
		agent("ana-quill", "analyst", sen, 8, w),
		agent("ana-birch", "analyst", sen, 8, w),
		agent("ana-sable", "analyst", sen, 6, i),
		agent("ana-moss", "analyst", sen, 5, w),
		agent("strat-orion", "strategist", sen, 5, w),
		agent("strat-lyra", "strategist", sen, 4, model.AgentWaiting),
		agent("plan-juno", "planner", sen, 5, w),
		agent("plan-cato", "planner", sen, 3, i),
		agent("sec-vega", "security-auditor", sen, 4, w),
		agent("sec-rigel", "security-auditor", sen, 3, w),
		agent("sre-atlas", "sre", 5, 6, w),
		agent("sre-nova", "sre", 5, 5, w),
		agent("sre-pike", "sre", 5, 4, o),
		agent("res-iris", "researcher", std, 10, w),
		agent("res-kai", "researcher", std, 10, w),
		agent("res-lumen", "researcher", std, 9, w),
		agent("res-ostara", "researcher", std, 8, i),
		agent("res-pallas", "researcher", std, 8, w),
		agent("res-quinn", "researcher", std, 7, w),
		agent("res-tarn", "researcher", std, 7, model.AgentFailed),
		agent("res-umbra", "researcher", std, 6, w),
		agent("data-wren", "data-engineer", std, 7, w),
		agent("data-finch", "data-engineer", std, 6, w),
		agent("data-heron", "data-engineer", std, 5, i),
		agent("data-jay", "data-engineer", std, 4, w),
		agent("doc-ember", "writer", std, 4, w),
		agent("doc-fern", "writer", std, 3, i),
		agent("obs-argus", "observer", model.AuthorityObserver, 0, w),
		agent("obs-iris", "observer", model.AuthorityObserver, 0, i),
		agent("audit-ledger", "auditor", model.AuthorityAudit, 0, w),
	}
}
