// Package detect finds the contradictions agents do not declare: it reads
// two units of a field and says whether the later one contradicts the
// earlier, why (the signal, the two phrases that disagree, a score) and
// what kind of conflict that is likely to be.
//
// It reads words, numbers and a few curated lists — no model, no network —
// so it runs embedded and offline, and every finding can be explained.
// Four signals: two values of one quantity that disagree ("p99 is 40 ms"
// against "p99 is 90 ms"), a claim and its negation, opposite terms said of
// one subject ("enabled", "disabled"), and a change the later unit reports
// ("switched from X to Y", "was X, now Y"). A field's detection_sensitivity
// (off, low, medium, high) sets how strong the evidence must be.
//
// Analyse reads a unit once into a Text; a Detector compares two Texts.
// Terms, RankHits and Rank help find the units a new one should be compared
// with through a field's word index; a Cache keeps read units. The package
// imports model only: the store, RECORD and DETECT call it
// (docs/detection.md).
package detect
