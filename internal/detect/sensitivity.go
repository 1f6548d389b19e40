package detect

import "arbiter/model"

// Sensitivity is the policy's detection_sensitivity (model.Sensitivity):
// how readily the detector opens a conflict. Low opens one only on strong
// evidence (values far apart, claims stated in nearly the same words);
// high on weaker evidence too, asking a person more often to dismiss one.
type Sensitivity = model.Sensitivity

// The levels, by their short names here.
const (
	Off    = model.SensitivityOff
	Low    = model.SensitivityLow
	Medium = model.SensitivityMedium
	High   = model.SensitivityHigh
)

// params are a level's thresholds.
type params struct {
	// threshold is the least score a finding needs.
	threshold float64
	// tolerance is the relative gap two values of one quantity may have
	// beyond the rounding they were written with, and still agree.
	tolerance float64
	// claim is the least overlap of two claims' words for them to be
	// about the same thing.
	claim float64
	// subject is the least overlap of the words around two values for
	// them to be values of one quantity.
	subject float64
}

var levels = map[Sensitivity]params{
	Low:    {threshold: 0.75, tolerance: 0.25, claim: 0.75, subject: 0.6},
	Medium: {threshold: 0.6, tolerance: 0.05, claim: 0.6, subject: 0.45},
	High:   {threshold: 0.45, tolerance: 0.02, claim: 0.5, subject: 0.35},
}
