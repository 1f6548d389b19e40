package review

import (
	"context"

	"arbiter/model"
	"arbiter/store"
)

// PreviewAgent is the stand-in human operator a join's preview acts as
// in its scratch copy: who previews a join need not be one.
const PreviewAgent = "join-preview"

// JoinPreview is a dry run of Join for anyone who may read the field:
// the field is copied into scratch, an empty field the caller made and
// removes afterwards, and the join is run there, as a stand-in human
// operator, and rolled back. Nothing is written to the field, which may
// be open read-only. The report is the one Join's dry run gives.
func (s *Service) JoinPreview(ctx context.Context, fork, scratch store.Field, opt JoinOptions) (model.JoinReport, error) {
	if _, err := store.Copy(ctx, s.st, scratch); err != nil {
		return model.JoinReport{}, err
	}
	standIn := model.Agent{ID: PreviewAgent, Role: "operator", Kind: model.KindHuman,
		Authority: model.AuthorityHumanOperator, Status: model.AgentIdle, RegisteredAt: s.now()}
	err := scratch.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.Agent(standIn.ID); err == nil {
			return nil
		}
		epoch, err := tx.Epoch()
		if err != nil {
			return err
		}
		return tx.AgentInsert(standIn, epoch)
	})
	if err != nil {
		return model.JoinReport{}, err
	}
	opt.DryRun = true
	return New(scratch).WithClock(s.now).Join(ctx, standIn.ID, fork, opt)
}
