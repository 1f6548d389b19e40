package mcpserver

import "arbiter/model"

// The tools' arguments. Their JSON schemas, with these descriptions, are
// inferred from the types; the protocol's vocabularies become enums (see
// inputSchema). Fields the protocol requires are required; the rules check
// the rest and refuse with the protocol's own codes.

// recordInput is an Akashik RECORD payload (model.RecordRequest).
type recordInput struct {
	Mode         model.Mode         `json:"mode,omitempty" jsonschema:"committed (the default: immutable, needs confidence) or draft"`
	Type         model.UnitType     `json:"type" jsonschema:"the kind of claim the unit makes"`
	Content      string             `json:"content" jsonschema:"the unit's text, in markdown"`
	Intent       intentInput        `json:"intent" jsonschema:"why you record it"`
	Confidence   *confidenceInput   `json:"confidence,omitempty" jsonschema:"how sure you are; a committed unit needs score and reasoning"`
	Relations    []relationInput    `json:"relations,omitempty" jsonschema:"links to units already in the field; each contradicts relation opens a conflict"`
	SessionID    *string            `json:"session_id,omitempty" jsonschema:"your session, if you have one"`
	ConflictType model.ConflictType `json:"conflict_type,omitempty" jsonschema:"what the conflicts your contradicts relations open are about (default factual)"`
}

type intentInput struct {
	Purpose  string  `json:"purpose" jsonschema:"why the unit is recorded (required, not empty)"`
	TaskID   *string `json:"task_id,omitempty" jsonschema:"the task it serves"`
	Question *string `json:"question,omitempty" jsonschema:"the question it answers"`
}

type confidenceInput struct {
	Score       *float64 `json:"score,omitempty" jsonschema:"from 0 to 1"`
	Reasoning   string   `json:"reasoning,omitempty" jsonschema:"why that score"`
	Evidence    []string `json:"evidence,omitempty" jsonschema:"what supports the claim"`
	Assumptions []string `json:"assumptions,omitempty" jsonschema:"what the claim takes for granted"`
}

type relationInput struct {
	Type        model.RelationType `json:"type" jsonschema:"how this unit relates to the target"`
	TargetID    string             `json:"target_id" jsonschema:"a unit id in the field, e.g. mem-001"`
	Description string             `json:"description,omitempty" jsonschema:"in a few words; for contradicts, what the two disagree about"`
}

func (in recordInput) request() model.RecordRequest {
	req := model.RecordRequest{
		Mode: in.Mode, Type: in.Type, Content: in.Content, SessionID: in.SessionID, ConflictType: in.ConflictType,
		Intent: model.Intent{Purpose: in.Intent.Purpose, TaskID: in.Intent.TaskID, Question: in.Intent.Question},
	}
	if c := in.Confidence; c != nil {
		req.Confidence = model.Confidence{Score: c.Score, Reasoning: c.Reasoning, Evidence: c.Evidence, Assumptions: c.Assumptions}
	}
	for _, r := range in.Relations {
		req.Relations = append(req.Relations, model.Relation{Type: r.Type, TargetID: r.TargetID, Description: r.Description})
	}
	return req
}

// statusName is a conflict status, or "all".
type statusName string

type conflictsInput struct {
	Status []statusName `json:"status,omitempty" jsonschema:"the statuses to list, or [\"all\"]; by default your units' open conflicts, then the review queue (escalated and pending_vote)"`
	Limit  int          `json:"limit,omitempty" jsonschema:"at most this many rows (default 50, at most 500)"`
	Cursor string       `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to read on; absent: from the start"`
}

type conflictInput struct {
	ConflictID string `json:"conflict_id" jsonschema:"e.g. conflict-001"`
}

type unitInput struct {
	UnitID string `json:"unit_id" jsonschema:"e.g. mem-001"`
}

// mergeInput is an Akashik MERGE payload (model.MergeRequest).
type mergeInput struct {
	ConflictID      string          `json:"conflict_id" jsonschema:"the conflict to decide"`
	Strategy        model.Strategy  `json:"strategy" jsonschema:"how to decide"`
	Resolution      resolutionInput `json:"resolution" jsonschema:"the decision"`
	ExpectedVersion int64           `json:"expected_version,omitempty" jsonschema:"the conflict version you read (from the conflict tool): the decision is refused if it changed since; 0 or absent: not checked"`
	Routing         *routingInput   `json:"routing,omitempty" jsonschema:"for human_escalation and vote: who it goes to and until when; absent parts take the field's policy"`
	Proposal        *proposalInput  `json:"proposal,omitempty" jsonschema:"for human_escalation: what you would do, for the person to approve, modify or send back"`
}

type routingInput struct {
	To       string `json:"to,omitempty" jsonschema:"human_escalation: the registered person it is routed to (default: the policy's owner for the conflict's type, else any human operator)"`
	Deadline string `json:"deadline,omitempty" jsonschema:"how long until the fallback executes: 90s, 4h, 2d (default: the policy's)"`
	Fallback string `json:"fallback,omitempty" jsonschema:"what executes at the deadline: dismiss, rework, last_write_wins, confidence_weighted, evidence_count or escalate:ID (default: the policy's)"`
}

type proposalInput struct {
	WinnerID  *string `json:"winner_id,omitempty" jsonschema:"the unit you would keep: its id, or A or B"`
	Synthesis *string `json:"synthesis,omitempty" jsonschema:"or the synthesis you would write instead"`
}

type resolutionInput struct {
	WinnerID  *string `json:"winner_id,omitempty" jsonschema:"the winning unit: its id, or A or B for the conflict's unit_a or unit_b"`
	Synthesis *string `json:"synthesis,omitempty" jsonschema:"for strategy synthesis: the text of the unit that replaces both"`
	Rationale string  `json:"rationale" jsonschema:"why (required)"`
}

type voteInput struct {
	ConflictID      string `json:"conflict_id" jsonschema:"a conflict put to a vote (status pending_vote)"`
	Choice          string `json:"choice" jsonschema:"the unit you vote for: its id, or A or B"`
	Rationale       string `json:"rationale" jsonschema:"why (required)"`
	ExpectedVersion int64  `json:"expected_version,omitempty" jsonschema:"the conflict version you read; 0 or absent: not checked"`
}

type inboxInput struct {
	SinceID    int64  `json:"since_id,omitempty" jsonschema:"only notifications after this notification id (pass the next_since_id of the last answer)"`
	SinceEpoch int64  `json:"since_epoch,omitempty" jsonschema:"only notifications after this epoch of the field's clock (as ATTUNE's since_epoch)"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many (default 100, at most 1000)"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to read on (instead of since_id)"`
}

type searchInput struct {
	Words  string `json:"words" jsonschema:"the words to find in units' text: every one must begin a word of it (case and accents aside), from two letters on"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many units (default 20, at most 200)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to read on"`
}

// detectInput is an Akashik DETECT payload (model.DetectRequest).
type detectInput struct {
	Mode       model.DetectMode `json:"mode" jsonschema:"list, check or scan"`
	Units      []string         `json:"units,omitempty" jsonschema:"check: the units to check, e.g. [\"mem-001\"]"`
	SinceEpoch int64            `json:"since_epoch,omitempty" jsonschema:"scan: only the units recorded after this epoch"`
	Limit      int              `json:"limit,omitempty" jsonschema:"scan: at most this many units this call (default and most 10000)"`
}
