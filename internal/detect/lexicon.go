package detect

import "strings"

// The word lists the signals read. Words are given as written; each is
// stemmed once when the package loads (see stem), so the lists name the
// forms a reader recognises and the comparisons see one form per word.

// stopList holds the function words: they carry no claim of their own, so
// they count neither for nor against two sentences being about the same
// thing. Negators and opposite terms are kept apart, below.
const stopList = `a an the this that these those there here it its it's they them their
	we our us you your he she his her i me my one ones some any all each every both either
	such other another same own
	is are was were be been being am has have had having do does did done doing
	will would shall should can could may might must need needs
	of on in at to for from by with into onto over under about around after before during
	until since through between across against among per via within upon off out
	and or but so if then than as because while whereas although though also just only even
	still already yet now today currently again really very quite much many few lot lots
	what which who whom whose when where how why
	get gets got make makes made take takes took come comes came go goes went gone
	say says said see sees saw seen look looks put puts set more
	etc e.g i.e vs versus like unlike too according
	whole part rest`

// articles are skipped when looking for the word before another ("the
// data platform"); prepositions lead to the word after another ("margin on
// hardware").
const (
	articleList     = `a an the our its their this that these those my your his her`
	prepositionList = `of on in at for to with from by`
)

// negList negates the claim of its segment. "no longer", "any more",
// "stopped" and "used to" negate it too, and say that it changed (see
// temporalNeg).
const negList = `not no never none nobody nothing neither nor without cannot lack lacks lacking
	missing absent nowhere avoid avoids avoiding`

// negPhrases negate the claim of their segment; the temporal ones say it
// was true and is not any more.
var negPhrases = []struct {
	words    []string
	temporal bool
}{
	{[]string{"no", "longer"}, true}, {[]string{"any", "more"}, true}, {[]string{"anymore"}, true},
	{[]string{"stopped"}, true}, {[]string{"stop"}, true}, {[]string{"stops"}, true},
	{[]string{"ceased"}, true}, {[]string{"used", "to"}, true}, {[]string{"previously"}, true},
	{[]string{"formerly"}, true}, {[]string{"decided", "against"}, false},
	{[]string{"no", "one"}, false},
}

// pole is one side of a pair of opposite terms: group names the pair,
// minus is the negative side. Opposite terms on the same subject carry the
// opposites signal; a negated opposite term agrees with its other side
// ("not enabled" and "disabled").
type pole struct {
	group uint8
	minus bool
}

// opposites are curated pairs: the first list is the positive side.
var opposites = [][2]string{
	{"enable enabled enables enabling activate activated active ondefault", "disable disabled disables disabling deactivate deactivated inactive offdefault"},
	{"include included includes including contain contains", "exclude excluded excludes excluding omit omitted omits"},
	{"pass passed passes passing succeed succeeded succeeds success successful work works working green", "fail failed fails failing failure broken crash crashed crashes red"},
	{"increase increased increases increasing raise raised raises rise rises rising rose grow grows growing grew growth up higher high highest accelerate accelerating faster fast gain gained",
		"decrease decreased decreases decreasing lower lowered lowers low lowest reduce reduced reduces fall falls falling fell decline declined declines drop dropped down less fewer decelerate decelerating shrink shrinks shrank slower slow"},
	{"safe secure protected", "unsafe insecure vulnerable"},
	{"required require requires mandatory", "optional unnecessary"},
	{"synchronous sync blocking", "asynchronous async nonblocking"},
	{"public publicly", "private privately"},
	{"online reachable", "offline unreachable"},
	{"healthy", "degraded unhealthy impaired"},
	{"top first most", "bottom last least"},
	{"critical severe major serious", "minor trivial cosmetic negligible"},
	{"urgent urgently asap immediately", "canwait defer deferred"},
	{"allow allowed allows permit permitted accept accepted accepts approve approved whitelist whitelisted",
		"block blocked blocks blocker blockers deny denied denies reject rejected rejects forbid forbidden ban banned prohibit prohibited blacklist blacklisted"},
	{"open opened", "closed"},
	{"strong stronger", "weak weaker"},
	{"easy easier", "hard harder difficult"},
	{"stable reliable", "unstable flaky unreliable"},
	{"keep keeps keeping retain continue", "remove removed removes deprecate deprecated retire retired sunset discontinue discontinued abandon"},
	{"expensive costly", "cheap inexpensive"},
	{"ahead", "behind"},
	{"positive", "negative"},
	{"encrypted", "plaintext unencrypted"},
	{"musthave", "nicetohave"},
	{"overestimate overestimated", "underestimate underestimated"},
}

// phrases are written as one word before anything else reads the text:
// "can wait" is the opposite of "urgent", "nice to have" of "must have".
var phrases = []struct {
	words []string
	as    string
}{
	{[]string{"can", "wait"}, "canwait"},
	{[]string{"nice", "to", "have"}, "nicetohave"},
	{[]string{"must", "have"}, "musthave"},
	{[]string{"in", "house"}, "inhouse"},
	{[]string{"non", "blocking"}, "nonblocking"},
	{[]string{"open", "source"}, "open"},
	{[]string{"closed", "source"}, "closed"},
	{[]string{"on", "by", "default"}, "ondefault"},
	{[]string{"off", "by", "default"}, "offdefault"},
}

// prefixes make a word's opposite ("unavailable", "incompatible",
// "non-idempotent"); a word so made is the opposite of the other text's
// word without the prefix, when the rest is long enough to be a word.
var prefixes = []string{"non", "un", "in", "im", "ir", "il", "dis"}

// lemmas are forms the stemmer would not join to their word, and a few
// abbreviations agents use for the same word.
var lemmas = map[string]string{
	"growth": "grow", "grew": "grow", "fell": "fall", "rose": "rise", "shrank": "shrink",
	"paid": "pay", "built": "build", "bought": "buy", "ran": "run", "lost": "lose",
	"ownership": "own", "owner": "own", "owners": "own", "owned": "own",
	"storage": "store", "stored": "store", "deployment": "deploy", "deployments": "deploy",
	"failure": "fail", "failures": "fail", "flakiness": "flaky", "flake": "flaky", "flakes": "flaky",
	"db": "database", "dbs": "database", "prod": "production", "repo": "repository", "repos": "repository",
	"config": "configuration", "configs": "configuration", "infra": "infrastructure",
	"k8s": "kubernetes", "perf": "performance", "env": "environment", "envs": "environment",
	"utilization": "utilisation", "prioritize": "prioritise", "prioritized": "prioritise",
	"favor": "favour", "favors": "favour", "behavior": "behaviour",
	"callers": "call", "caller": "call", "called": "call", "calls": "call", "drove": "drive", "driven": "drive",
	"users": "user", "percent": "%", "pct": "%",
}

// countSynonyms are count units that name the same thing ("5 attempts",
// "8 times").
var countSynonyms = [][]string{
	{"attempt", "time", "retry", "try"},
	{"engineer", "person", "people", "developer", "head", "headcount"},
	{"node", "host", "machine", "server", "vm"},
	{"replica", "pod", "instance"},
	{"request", "req", "call", "query", "queries"},
	{"message", "msg", "event"},
	{"row", "record"},
}

// Cues for the conflict type: words found in the disagreeing sentences.
const (
	priorityCues     = `priority priorities prioritise urgent urgency blocker blockers severity sev0 sev1 sev2 sev3 sev4 p0 p1 p2 p3 p4 musthave nicetohave canwait roadmap important unimportant backlog`
	strategicCues    = `should recommend recommended recommendation propose proposal plan plans planned decision decide decided strategy approach option adopt avoid let target goal instead`
	interpretiveCues = `cause caused causes because due means meaning suggest suggests suggested indicate indicates indicated reflect reflects explain explains explained driven drove likely symptom conclude concludes concluded attribute attributed reason sign interpret`
	// imperatives begin a sentence that tells the team what to do.
	imperatives = `use block allow drop ship run start stop require keep split treat do don't avoid enable disable raise lower migrate adopt build buy hire move switch deprecate remove add expand`
)

// lexClass is the lists a word is in, looked up once per token.
type lexClass uint16

const (
	lxStop lexClass = 1 << iota
	lxNeg
	lxNumber
	lxMonth
	lxChange
	lxReplace
	lxRetire
	lxArticle
	lxPreposition
	lxCopula
	lxPhrase // the first word of a phrase
)

// lexicon holds every listed word with its lists.
var lexicon = map[string]lexClass{}

func addClass(c lexClass, words ...string) {
	for _, w := range words {
		lexicon[w] |= c
	}
}

func wordSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// The lists as sets, built once.
var (
	stopWords     = wordSet(stopList)
	articles      = wordSet(articleList)
	prepositions  = wordSet(prepositionList)
	negators      = wordSet(negList)
	cuePriority   = wordSet(priorityCues)
	cueStrategic  = wordSet(strategicCues)
	cueInterpret  = wordSet(interpretiveCues)
	imperativeSet = wordSet(imperatives)
	poles         = map[string]pole{} // by stem
	countUnit     = map[string]string{}
)

func init() {
	for _, l := range []struct {
		c lexClass
		m map[string]bool
	}{{lxStop, stopWords}, {lxNeg, negators}, {lxArticle, articles}, {lxPreposition, prepositions},
		{lxChange, changeVerbs}, {lxReplace, replaceVerbs}, {lxRetire, retireWords}, {lxCopula, copulas}} {
		for w := range l.m {
			addClass(l.c, w)
		}
	}
	for w := range numberWords {
		addClass(lxNumber, w)
	}
	for w := range months {
		addClass(lxMonth, w)
	}
	for _, p := range negPhrases {
		addClass(lxPhrase, p.words[0])
	}
	for _, p := range phrases {
		addClass(lxPhrase, p.words[0])
	}
	for i, pair := range opposites {
		for side, list := range pair {
			for _, w := range strings.Fields(list) {
				poles[stem(w)] = pole{group: uint8(i + 1), minus: side == 1}
			}
		}
	}
	for _, set := range countSynonyms {
		for _, w := range set {
			countUnit[stem(w)] = set[0]
		}
	}
}
