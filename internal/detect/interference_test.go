package detect

import (
	"regexp"
	"strings"
)

// The baseline: mcp-memory-service's lexical contradiction signals,
// re-implemented to run on the same pairs as the detector.
//
// Source: src/mcp_memory_service/utils/interference.py and the
// InterferenceSettings of src/mcp_memory_service/config.py in
// github.com/27b-io/mcp-memory-service at 3722a2f (the memory service's
// branch whose store path runs these signals; doobidoo's v10.59.0 flags a
// pair on embedding similarity ≥ 0.95 and difflib divergence ≥ 0.20
// instead, with no lexical signal). What it does, step for step:
//
//   - a new memory is compared with its nearest stored memories
//     (max_candidates 5) whose cosine similarity is at least
//     similarity_threshold (0.7);
//   - both texts are lower-cased and cut into tokens by
//     [a-z0-9]+(?:[_-][a-z0-9]+)* (so "don't" is "don" and "t");
//   - negation asymmetry: the counts of negation words differ; the
//     confidence is similarity × (shared non-negation tokens / the larger
//     text's non-negation tokens) × min(|difference| / 2, 1), dropped
//     under 0.1;
//   - antonym pairs: the new text holds one side of a pair and the stored
//     one the other side, neither holding both; confidence similarity ×
//     (0.5 + 0.5 × min(pairs / 2, 1));
//   - temporal supersession: a change phrase in the new text alone;
//     confidence similarity × 0.8;
//   - a signal counts from min_confidence (0.3); any counted signal is a
//     contradiction.
//
// Its similarity comes from an embedding model this machine does not run;
// see interferenceBaseline for what stands in for it.

var (
	mmNegations = wordSet(`not no never none neither nor dont doesnt didnt isnt wasnt arent werent cant couldnt
		shouldnt wouldnt wont hasnt havent without lack lacks lacking absent missing false incorrect wrong invalid`)
	mmAntonyms = [][2]map[string]bool{
		{wordSet("enable enabled activate activated on"), wordSet("disable disabled deactivate deactivated off")},
		{wordSet("true yes correct right"), wordSet("false no incorrect wrong")},
		{wordSet("add added include included install installed"), wordSet("remove removed exclude excluded uninstall uninstalled")},
		{wordSet("success succeeded pass passed works working"), wordSet("fail failed failure broken crash crashed")},
		{wordSet("increase increased raise raised up higher more"), wordSet("decrease decreased lower lowered down less fewer")},
		{wordSet("start started begin began open opened"), wordSet("stop stopped end ended close closed")},
		{wordSet("allow allowed permit permitted accept accepted"), wordSet("deny denied reject rejected block blocked forbid")},
		{wordSet("safe secure protected"), wordSet("unsafe insecure vulnerable exposed")},
		{wordSet("required mandatory necessary must"), wordSet("optional unnecessary redundant")},
		{wordSet("deprecated obsolete legacy outdated"), wordSet("current modern recommended preferred")},
		{wordSet("sync synchronous blocking"), wordSet("async asynchronous non-blocking")},
	}
	mmTemporal = regexp.MustCompile(`(?i)\b(?:(?:no longer|not anymore|stopped|switched from|migrated from|moved away from|` +
		`replaced by|superseded by|previously|used to|was .+ now|changed .+ to|updated .+ to|upgraded .+ to))\b`)
	mmToken = regexp.MustCompile(`[a-z0-9]+(?:[_-][a-z0-9]+)*`)
)

const (
	mmSimilarityThreshold = 0.7
	mmMinConfidence       = 0.3
)

// mmSignal is one of its signals: the kind and the confidence.
type mmSignal struct {
	kind       string
	confidence float64
}

// interferenceSignals is detect_contradiction_signals: the signals of a
// new text against a stored one of the given similarity.
func interferenceSignals(newText, stored string, similarity float64) []mmSignal {
	nt, st := mmTokens(newText), mmTokens(stored)
	if len(nt) == 0 || len(st) == 0 {
		return nil
	}
	var out []mmSignal
	if c, ok := mmNegation(nt, st, similarity); ok && c >= mmMinConfidence {
		out = append(out, mmSignal{"negation", c})
	}
	if c, ok := mmAntonym(nt, st, similarity); ok && c >= mmMinConfidence {
		out = append(out, mmSignal{"antonym", c})
	}
	if mmTemporal.MatchString(newText) && similarity*0.8 >= mmMinConfidence {
		out = append(out, mmSignal{"temporal", similarity * 0.8})
	}
	return out
}

func mmTokens(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range mmToken.FindAllString(strings.ToLower(s), -1) {
		m[w] = true
	}
	return m
}

func mmNegation(nt, st map[string]bool, similarity float64) (float64, bool) {
	nNeg, sNeg := 0, 0
	nRest, sRest := map[string]bool{}, map[string]bool{}
	for w := range nt {
		if mmNegations[w] {
			nNeg++
		} else {
			nRest[w] = true
		}
	}
	for w := range st {
		if mmNegations[w] {
			sNeg++
		} else {
			sRest[w] = true
		}
	}
	diff := nNeg - sNeg
	if diff == 0 {
		return 0, false
	}
	shared := 0
	for w := range nRest {
		if sRest[w] {
			shared++
		}
	}
	if shared == 0 {
		return 0, false
	}
	ratio := float64(shared) / float64(max(len(nRest), len(sRest), 1))
	c := similarity * ratio * min(float64(abs(diff))/2, 1)
	if c < 0.1 {
		return 0, false
	}
	return min(c, 1), true
}

func mmAntonym(nt, st map[string]bool, similarity float64) (float64, bool) {
	found := 0
	for _, pair := range mmAntonyms {
		na, nb := mmAny(nt, pair[0]), mmAny(nt, pair[1])
		sa, sb := mmAny(st, pair[0]), mmAny(st, pair[1])
		if ((na && sb) || (nb && sa)) && !(na && nb) && !(sa && sb) {
			found++
		}
	}
	if found == 0 {
		return 0, false
	}
	c := similarity * (0.5 + 0.5*min(float64(found)/2, 1))
	return min(c, 1), true
}

func mmAny(tokens, side map[string]bool) bool {
	for w := range side {
		if tokens[w] {
			return true
		}
	}
	return false
}

// interferenceBaseline says whether the baseline flags the pair, B being
// the new memory and A the stored one. similarity stands in for the
// embedding's cosine: every labelled pair is about one subject and is
// taken as one of the new memory's nearest neighbours, at the similarity
// given (the tests run it at the gate, 0.7, at 0.85 and at 1.0, the most
// generous), so the baseline is judged on its signals alone.
func interferenceBaseline(a, b string, similarity float64) bool {
	if similarity < mmSimilarityThreshold {
		return false
	}
	return len(interferenceSignals(b, a, similarity)) > 0
}
