package mcpmemory

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"arbiter/model"
)

// Merge decides a pair, in their semantics, in one short write
// transaction:
//
//   - a strategy that names a winner is their resolve_conflict: the
//     loser's superseded_by ← the winner's hash; the winner's confidence
//     ← 1.0 and last_accessed ← now; conflict:unresolved taken out of
//     both memories' tags. Arbiter's record (resolved_at, resolved_by,
//     resolution_action, rationale, strategy) goes into the metadata of
//     the pair's two edges, which their code does not read.
//   - dismiss removes the pair's two contradicts edges and the tag from
//     both memories, and appends arbiter's record to the conflict_history
//     array of both memories' metadata.
//
// Nothing else is written. The strategies their model has no room for
// are refused by the policy (model.Permit).
// CheckMerge runs every check Merge runs, in a read transaction: nil
// when Merge would take req now, else its refusal.
func (d *Desk) CheckMerge(ctx context.Context, callerID string, req model.MergeRequest) error {
	const op = model.OpMerge
	if err := model.CheckMergeRequest(req); err != nil {
		return err
	}
	if callerID == "" {
		return model.Errorf(op, model.CodeAgentNotRegistered, "say who you are with --as NAME (or ARBITER_AS)", "no caller given")
	}
	return d.read(ctx, op, func(tx *sql.Tx) error {
		_, _, _, err := checkDecision(ctx, tx, owner(callerID), req)
		return err
	})
}

// checkDecision is every rule a decision on their file must meet, read
// in tx: the pair exists, is at the version the caller saw, the policy
// lets the caller use the strategy, and the winner is one of the pair's.
func checkDecision(ctx context.Context, tx *sql.Tx, caller model.Agent, req model.MergeRequest) (found, model.ConflictDetail, string, error) {
	const op = model.OpMerge
	f, err := find(ctx, tx, op, req.ConflictID)
	if err != nil {
		return f, model.ConflictDetail{}, "", err
	}
	dt, err := detail(ctx, tx, f)
	if err != nil {
		return f, dt, "", err
	}
	if c := dt.Conflict; req.ExpectedVersion != 0 && req.ExpectedVersion != c.Version {
		return f, dt, "", model.Errorf(op, model.CodeInvalidTransition, "re-read the conflict and decide again",
			"%s changed since you read it (you saw version %d; it is at %d and is %s)", c.ID, req.ExpectedVersion, c.Version, c.Status)
	}
	if perr := model.Permit(caller, dt, req.Strategy); perr != nil {
		return f, dt, "", perr
	}
	winner, err := pickWinner(dt, f, req)
	return f, dt, winner, err
}

func (d *Desk) Merge(ctx context.Context, callerID string, req model.MergeRequest) (model.MergeResponse, error) {
	const op = model.OpMerge
	var resp model.MergeResponse
	if err := model.CheckMergeRequest(req); err != nil {
		return resp, err
	}
	if callerID == "" {
		return resp, model.Errorf(op, model.CodeAgentNotRegistered, "say who you are with --as NAME (or ARBITER_AS)", "no caller given")
	}
	caller := owner(callerID)
	err := d.write(ctx, op, func(tx *sql.Tx) error {
		f, dt, winner, err := checkDecision(ctx, tx, caller, req)
		if err != nil {
			return err
		}
		c := dt.Conflict
		rec := record{at: d.now(), by: caller.ID, rationale: strings.TrimSpace(req.Resolution.Rationale), strategy: req.Strategy}
		if req.Strategy == model.Dismiss {
			err = dismiss(ctx, tx, f, rec)
		} else {
			w, l := f.a, f.b
			if winner == c.UnitB {
				w, l = f.b, f.a
			}
			err = keep(ctx, tx, w, l, rec)
			resp.SideEffects.SupersededUnits = []string{unitID(l.hash)}
		}
		if err != nil {
			return err
		}
		after, err := find(ctx, tx, op, c.ID)
		if err != nil {
			return err
		}
		resp.Conflict = after.toConflict()
		resp.Status = resp.Conflict.Status
		return nil
	})
	if err != nil {
		return model.MergeResponse{}, err
	}
	if resp.SideEffects.SupersededUnits == nil {
		resp.SideEffects.SupersededUnits = []string{}
	}
	resp.SideEffects.NotifiedAgents = []string{}
	return resp, nil
}

// pickWinner is the memory a strategy keeps: the one named (by its id,
// a longer prefix of its hash or the whole hash), which a deterministic
// rule must pick too (a tie decides nothing); "" for dismiss.
func pickWinner(dt model.ConflictDetail, f found, req model.MergeRequest) (string, error) {
	const op = model.OpMerge
	c := dt.Conflict
	var winner string
	if w := req.Resolution.WinnerID; w != nil && *w != "" {
		id := strings.ToLower(strings.TrimSpace(*w))
		names := func(unit, hash string) bool {
			return id == strings.ToLower(unit) || len(id) >= minPrefix && strings.HasPrefix(hash, id)
		}
		switch a, b := names(c.UnitA, f.a.hash), names(c.UnitB, f.b.hash); {
		case a && !b:
			winner = c.UnitA
		case b && !a:
			winner = c.UnitB
		default:
			return "", model.Errorf(op, model.CodeInvalidRequest, "name "+c.UnitA+" or "+c.UnitB,
				"%q does not name one of %s's memories (%s, %s)", *w, c.ID, c.UnitA, c.UnitB)
		}
	}
	named := winner
	winner, pick, refusal := model.MergeWinner(req.Strategy, named, dt.A.Contender(), dt.B.Contender())
	if refusal != nil {
		refusal.SuggestedAction = "name the memory to keep with authority"
		if !pick.Tie {
			refusal.SuggestedAction = "keep " + pick.WinnerID + ", or keep " + named + " with authority"
		}
		return "", refusal
	}
	return winner, nil
}

// record is arbiter's account of a decision, written where their code
// does not look.
type record struct {
	at        time.Time
	by        string
	rationale string
	strategy  model.Strategy
}

func (r record) members(action string) []member {
	return []member{
		{"resolved_at", jsonTime(r.at)},
		{"resolved_by", jsonString(r.by)},
		{"resolution_action", jsonString(action)},
		{"rationale", jsonString(r.rationale)},
		{"strategy", jsonString(string(r.strategy))},
	}
}

// keep is their resolve_conflict(winner, loser), plus arbiter's record
// on both contradicts edges of the pair.
func keep(ctx context.Context, tx execer, w, l memory, rec record) error {
	now := rec.at.Unix() // their int(time.time())
	if _, err := tx.ExecContext(ctx, supersede, w.hash, withoutConflictTag(l.tags.String, l.tags.Valid), l.hash); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, boost, now, withoutConflictTag(w.tags.String, w.tags.Valid), w.hash); err != nil {
		return err
	}
	for _, e := range [][2]string{{w.hash, l.hash}, {l.hash, w.hash}} {
		action := actionKeepTarget
		if e[0] == w.hash {
			action = actionKeepSource
		}
		if err := noteOnEdge(ctx, tx, e[0], e[1], rec.members(action)); err != nil {
			return err
		}
	}
	return nil
}

func noteOnEdge(ctx context.Context, tx execer, src, dst string, ms []member) error {
	var meta sql.NullString
	err := tx.QueryRowContext(ctx, edgeMetadata, src, dst).Scan(&meta)
	if err == sql.ErrNoRows {
		return nil // only one direction stands; their lister needs no more
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, noteEdge, setMembers(meta.String, ms), src, dst)
	return err
}

// dismiss removes the pair's contradicts edges and the tag, as their
// delete leaves a pair that is no conflict, and records the dismissal in
// both memories' metadata (conflict_history, the per-memory history their
// design proposes).
func dismiss(ctx context.Context, tx execer, f found, rec record) error {
	if _, err := tx.ExecContext(ctx, dropEdges, f.a.hash, f.b.hash); err != nil {
		return err
	}
	div := lookup(f.p.metadata.String, "divergence")
	for _, pair := range [][2]memory{{f.a, f.b}, {f.b, f.a}} {
		m, other := pair[0], pair[1]
		entry := append(rec.members(actionDismiss), member{"conflict_with", jsonString(other.hash)},
			member{"similarity", jsonFloat(f.p.similarity)})
		if div != "" {
			entry = append(entry, member{"divergence", div})
		}
		entry = append(entry, member{"detected_at", jsonFloat(f.p.created)})
		meta := appendMember(m.metadata.String, "conflict_history", pyObject(entry))
		if _, err := tx.ExecContext(ctx, noteMemory, withoutConflictTag(m.tags.String, m.tags.Valid), meta, m.hash); err != nil {
			return err
		}
	}
	return nil
}

// Vote: their model has no votes.
func (d *Desk) Vote(context.Context, string, model.VoteRequest) (model.VoteResponse, error) {
	return model.VoteResponse{}, model.Errorf(model.OpVote, model.CodeUnsupportedOperation, "keep one memory or dismiss the pair",
		"mcp-memory-service has no votes: its conflicts wait for one person")
}

// Reopen: their resolve keeps no record of what it replaced, so arbiter
// cannot take a decision back safely.
func (d *Desk) Reopen(context.Context, string, model.ReopenRequest) (model.ReopenResponse, error) {
	return model.ReopenResponse{}, model.Errorf(model.OpReopen, model.CodeUnsupportedOperation,
		"edit the memories through mcp-memory-service",
		"decisions on an mcp-memory-service database cannot be taken back here: their resolve keeps no record of what it replaced")
}
