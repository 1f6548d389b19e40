package mcpserver

import (
	"arbiter/model"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names, as clients call them.
const (
	ToolRecord    = "record"
	ToolConflicts = "conflicts"
	ToolConflict  = "conflict"
	ToolUnit      = "unit"
	ToolMerge     = "merge"
	ToolVote      = "vote"
	ToolInbox     = "inbox"
	ToolSearch    = "search"
	ToolDetect    = "detect"
)

// addTools registers every tool. Descriptions are constant: nothing from
// the field is ever spliced into them.
func (s *Server) addTools() error {
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	for _, err := range []error{
		addTool(s, &mcp.Tool{Name: ToolRecord, Title: "Record a memory unit",
			Description: "Record a memory unit in the field as you (Akashik RECORD). Each contradicts relation opens a conflict " +
				"between its target and your unit, and both authors are notified. Returns the unit id, the epoch and the conflicts opened. " +
				"Refusals are the protocol's error object (e.g. MISSING_INTENT, MISSING_CONFIDENCE, UNIT_NOT_FOUND, READ_ONLY).",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)},
		}, model.OpRecord, s.record),
		addTool(s, &mcp.Tool{Name: ToolConflicts, Title: "List conflicts",
			Description: "List conflicts, oldest first: those about units you recorded, then the others. By default your units' open " +
				"conflicts, then the review queue (escalated and put to a vote); status filters otherwise. `yours` says how many of " +
				"the first rows are about your units.",
			Annotations: read,
		}, model.OpDetect, s.conflicts),
		addTool(s, &mcp.Tool{Name: ToolConflict, Title: "Show a conflict",
			Description: "Everything known of one conflict: both units with their authors and supporters, its status, version and " +
				"resolution, the ballots and tally of a vote, what each deterministic rule picks, its events, your notifications about it " +
				"and who else was told (told; what they were told is theirs). Pass " +
				"its version to merge or vote as expected_version. The same JSON is the resource arbiter://conflicts/{id}.",
			Annotations: read,
		}, model.OpDetect, s.conflict),
		addTool(s, &mcp.Tool{Name: ToolUnit, Title: "Show a unit",
			Description: "One memory unit by id: its content, intent, confidence, relations both ways, its author and the conflicts it is in.",
			Annotations: read,
		}, model.OpAttune, s.unit),
		addTool(s, &mcp.Tool{Name: ToolMerge, Title: "Decide a conflict (MERGE)",
			Description: "Decide a conflict as you, with your authority and exactly the field's rules (Akashik MERGE): resolve it " +
				"with a strategy, put it to a vote, or escalate it to a human operator (human_escalation). Returns the MERGE response " +
				"{status, conflict, side_effects}. Refusals: INVALID_TRANSITION (re-read the conflict), MERGE_FAILED, NOT_PERMITTED, " +
				"CONFLICT_NOT_FOUND, READ_ONLY. On a read-only field with a decisions file the decision goes to the file (offline).",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)},
		}, model.OpMerge, s.merge),
		addTool(s, &mcp.Tool{Name: ToolVote, Title: "Vote on a conflict",
			Description: "Cast, or change, your ballot on a conflict put to a vote. When the ballots reach the quorum the majority " +
				"prevails and the losing unit is superseded; a tie stays open or goes to a human operator, as the field's policy says.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)},
		}, model.OpVote, s.vote),
		addTool(s, &mcp.Tool{Name: ToolInbox, Title: "Read your notifications",
			Description: "Your notifications, oldest first: conflicts opened against your units, escalations, votes, decisions. " +
				"Pass next_since_id back as since_id to read only newer ones, or since_epoch to read those after an epoch.",
			Annotations: read,
		}, model.OpAttune, s.inboxTool),
		addTool(s, &mcp.Tool{Name: ToolSearch, Title: "Find units by their words",
			Description: "Find units whose text has every one of the words (each the beginning of a word of it, from two letters " +
				"on, case and accents aside), in the order they were recorded: to find the unit you mean to support or contradict. " +
				"Pass next_cursor back as cursor to read on.",
			Annotations: read,
		}, model.OpAttune, s.search),
		addTool(s, &mcp.Tool{Name: ToolDetect, Title: "Detect contradictions (DETECT)",
			Description: "Akashik DETECT. mode list: the open conflicts, oldest first. mode check: for each of units, the conflicts it is " +
				"in, open first (UNIT_NOT_FOUND for an unknown one). mode scan (authority 8 or more): compare units with the earlier " +
				"ones, as RECORD does when the field's detection_sensitivity is not off, and open the contradictions found; at most " +
				"limit units a call (default and most 10000), going on from where the field's scan stopped: call again until " +
				"scan.finished_at is set; since_epoch looks only at units recorded after it. A conflict the field detected carries " +
				"detection: the signal (quantity, negation, opposites, temporal), the two phrases that disagree and a score. A pair " +
				"with a conflict, or dismissed as not a contradiction, is never opened again.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)},
		}, model.OpDetect, s.detect),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}
