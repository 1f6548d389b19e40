package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Sensitivity is how readily a field detects the contradictions nobody
// declared (the policy's detection_sensitivity; docs/detection.md).
type Sensitivity string

const (
	// SensitivityOff detects nothing: only contradicts relations open
	// conflicts. A field made before detection existed keeps it.
	SensitivityOff Sensitivity = "off"
	// SensitivityLow opens a conflict on strong evidence only.
	SensitivityLow Sensitivity = "low"
	// SensitivityMedium is what `arbiter init` writes.
	SensitivityMedium Sensitivity = "medium"
	// SensitivityHigh opens a conflict on weaker evidence too.
	SensitivityHigh Sensitivity = "high"
)

// Sensitivities lists the levels from none to most.
var Sensitivities = []Sensitivity{SensitivityOff, SensitivityLow, SensitivityMedium, SensitivityHigh}

// ParseSensitivity reads a level by its name.
func ParseSensitivity(s string) (Sensitivity, error) {
	if v := Sensitivity(strings.TrimSpace(s)); slices.Contains(Sensitivities, v) {
		return v, nil
	}
	return "", fmt.Errorf("detection sensitivity %q: use off, low, medium or high", s)
}

// On reports whether the level detects anything ("" is off: a policy
// another program's file gives has none).
func (s Sensitivity) On() bool { return s != "" && s != SensitivityOff }

// Or is s, or off when s is empty.
func (s Sensitivity) Or() Sensitivity {
	if s == "" {
		return SensitivityOff
	}
	return s
}

// DetectSignal is the kind of evidence a detected conflict rests on.
type DetectSignal string

const (
	// SignalQuantity: two values of one quantity that disagree.
	SignalQuantity DetectSignal = "quantity"
	// SignalNegation: one unit negates the other's claim.
	SignalNegation DetectSignal = "negation"
	// SignalOpposites: opposite terms said of one subject.
	SignalOpposites DetectSignal = "opposites"
	// SignalTemporal: the later unit says the earlier one's claim is no
	// longer true.
	SignalTemporal DetectSignal = "temporal"
)

// Phrase is a part of a unit's content: byte offsets and the text.
type Phrase struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Detection is why the field found two units to contradict each other
// when nobody declared it (arbiter's): the conflict's type and
// detected_by say the rest.
type Detection struct {
	Signal DetectSignal `json:"signal"`
	// Score is how strong the evidence is, from 0 to 1.
	Score float64 `json:"score"`
	// Sensitivity is the level it was found at.
	Sensitivity Sensitivity `json:"sensitivity"`
	// PhraseA and PhraseB are the phrases that disagree, in unit A (the
	// earlier) and in unit B.
	PhraseA Phrase `json:"phrase_a"`
	PhraseB Phrase `json:"phrase_b"`
	// Values are a quantity's two values as written, A's then B's.
	Values []string `json:"values,omitempty"`
}

// Reason is the detection in one line, for people: "quantity, score
// 0.82 at medium: “40 ms” against “90 ms”". It holds field text: make it
// safe before a terminal shows it.
func (d Detection) Reason() string {
	a, b := d.PhraseA.Text, d.PhraseB.Text
	if d.Signal == SignalQuantity && len(d.Values) == 2 {
		a, b = d.Values[0], d.Values[1]
	}
	return fmt.Sprintf("%s: %s against %s", d.Summary(), Quoted(a), Quoted(b))
}

// Summary is the signal, the score and the level: "quantity, score 0.82
// at medium".
func (d Detection) Summary() string {
	return fmt.Sprintf("%s, score %.2f at %s", d.Signal, d.Score, d.Sensitivity.Or())
}

// Quoted is s in curly quotes, on one line, cut at a word near 100 bytes.
func Quoted(s string) string {
	const most = 100
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > most {
		cut := strings.LastIndexByte(s[:most], ' ')
		if cut < most/2 {
			cut = most
			for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a character
				cut--
			}
		}
		s = s[:cut] + "…"
	}
	return "“" + s + "”"
}

// Pair is two unit ids in the order a pair is kept in: the smaller first.
func Pair(a, b string) (string, string) {
	if b < a {
		return b, a
	}
	return a, b
}

// Dismissed is a pair of units a person said do not contradict each
// other: detection never opens a conflict between them again.
type Dismissed struct {
	UnitA      string    `json:"unit_a"` // the pair in id order
	UnitB      string    `json:"unit_b"`
	By         string    `json:"by"`
	At         time.Time `json:"at"`
	ConflictID string    `json:"conflict_id"`
}

// DetectMode is what a DETECT asks for.
type DetectMode string

const (
	// DetectList lists the open conflicts.
	DetectList DetectMode = "list"
	// DetectCheck says which conflicts each of some units is in.
	DetectCheck DetectMode = "check"
	// DetectScan compares every unit (or those since an epoch) with the
	// earlier ones and opens the conflicts found.
	DetectScan DetectMode = "scan"
)

// DetectModes lists the modes.
var DetectModes = []DetectMode{DetectList, DetectCheck, DetectScan}

// Valid reports whether m is a known mode.
func (m DetectMode) Valid() bool { return slices.Contains(DetectModes, m) }

// DetectRequest is a DETECT payload.
type DetectRequest struct {
	Mode DetectMode `json:"mode"`
	// Units are the units check looks at.
	Units []string `json:"units,omitempty"`
	// SinceEpoch limits a scan to the units recorded after it (0: all).
	SinceEpoch int64 `json:"since_epoch,omitempty"`
	// Limit is how many units a scan looks at in this call at most (0:
	// all that are left); the next call goes on from where it stopped.
	Limit int `json:"limit,omitempty"`
}

// UnitConflicts is the conflicts one unit is in, open ones first.
type UnitConflicts struct {
	UnitID    string     `json:"unit_id"`
	Conflicts []Conflict `json:"conflicts"`
}

// DetectResult is DETECT's answer: the conflicts for list, each unit's
// for check, and for scan the conflicts it opened and where it stands.
type DetectResult struct {
	Mode      DetectMode      `json:"mode"`
	Conflicts []Conflict      `json:"conflicts,omitempty"`
	Units     []UnitConflicts `json:"units,omitempty"`
	Scan      *ScanState      `json:"scan,omitempty"`
}

// ScanState is where a field's scan for contradictions stands, kept in
// the field so that a stopped scan goes on where it stopped.
type ScanState struct {
	// SinceEpoch is the scan's start: it looks at the units recorded
	// after it (0: every unit).
	SinceEpoch int64 `json:"since_epoch"`
	// Cursor is the sequence number of the last unit done.
	Cursor      int64       `json:"cursor"`
	Sensitivity Sensitivity `json:"sensitivity"`
	// Done counts the units looked at, Found the conflicts opened.
	Done  int64 `json:"units_done"`
	Found int64 `json:"found"`
	// Total is how many units the scan has to look at in all (reported
	// by a scan; not kept).
	Total      int64      `json:"units_total,omitempty"`
	StartedAt  time.Time  `json:"started_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// Finished reports whether the scan looked at every unit it had to.
func (s ScanState) Finished() bool { return s.FinishedAt != nil }
