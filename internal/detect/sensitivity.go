package detect

import (
	"fmt"
	"slices"
)

// Sensitivity is how readily a field's detector opens a conflict: the
// policy's detection_sensitivity.
type Sensitivity string

const (
	// Off detects nothing: only declared contradictions open conflicts.
	Off Sensitivity = "off"
	// Low opens a conflict only on strong evidence: values far apart,
	// claims stated in nearly the same words.
	Low Sensitivity = "low"
	// Medium is the default of a new field.
	Medium Sensitivity = "medium"
	// High opens a conflict on weaker evidence, and asks a person more
	// often to dismiss one.
	High Sensitivity = "high"
)

// Sensitivities lists the levels from none to most.
var Sensitivities = []Sensitivity{Off, Low, Medium, High}

// ParseSensitivity reads a level by its name.
func ParseSensitivity(s string) (Sensitivity, error) {
	if v := Sensitivity(s); slices.Contains(Sensitivities, v) {
		return v, nil
	}
	return "", fmt.Errorf("detection sensitivity %q: use off, low, medium or high", s)
}

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
