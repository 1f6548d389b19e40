package model

// HonestStrategy is the strategy a decision keeping winner records when
// a person simply picks a unit: the first deterministic rule (in
// RulePicks' order) that picks winner, since that rule is then why it
// prevails; else authority, the person's own judgment. It returns
// Permit's refusal when a may not decide the conflict of d that way.
func HonestStrategy(a Agent, d ConflictDetail, winner string) (Strategy, *Error) {
	if _, ok := d.Conflict.Other(winner); !ok {
		return "", Errorf(OpMerge, CodeInvalidRequest, "choose "+d.Conflict.UnitA+" or "+d.Conflict.UnitB,
			"%q is not one of %s's units", winner, d.Conflict.ID)
	}
	var refusal *Error
	for _, p := range RulePicks(d.A.Contender(), d.B.Contender()) {
		if p.Tie || p.WinnerID != winner {
			continue
		}
		err := Permit(a, d, p.Strategy)
		if err == nil {
			return p.Strategy, nil
		}
		if refusal == nil {
			refusal = err
		}
	}
	if err := Permit(a, d, Authority); err != nil {
		if refusal != nil {
			return "", refusal
		}
		return "", err
	}
	return Authority, nil
}
