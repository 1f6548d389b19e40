package fieldgen

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Content sizes: lognormal around a few hundred bytes, so most units are a
// sentence or a paragraph; one in longDocEvery is a long document of 4 to
// 40 KB with headings, tables and code.
const (
	medianBytes  = 320
	sizeSigma    = 0.9
	minBytes     = 40
	maxBytes     = 48 << 10
	longDocEvery = 100
)

// topics are what the generated team works on; a conflict's two units
// share one.
var topics = []string{
	"the webhook retry budget", "the ledger reconciliation window", "p99 latency of the capture path",
	"the dual-write cutover date", "the chargeback baseline", "the PCI scope of the tokenizer",
	"the idempotency key format", "peak load for the holiday season", "binlog retention on the primary",
	"the fraud score threshold", "the settlement batch size", "the read-replica lag budget",
	"the secret rotation period", "the refund SLA", "the merchant onboarding queue",
	"currency rounding in payouts", "the dispute evidence deadline", "the warm standby region",
	"the API rate limit for partners", "the schema migration order", "the cache TTL of FX rates",
	"the alerting threshold for failed captures", "the canary share for the new ledger",
	"the retention of card fingerprints", "the on-call rotation for the cutover",
	"the timeout of the acquirer client", "the error budget of checkout", "the nightly export format",
	"the risk model retraining cadence", "the archive tier for old ledgers", "the GC pause budget",
	"the Kafka partition count", "the connection pool size", "the load test traffic mix",
	"the feature flag cleanup", "the penetration test window", "the audit log schema",
	"the backfill of historical payouts", "the shard key of the ledger", "the card authentication fallback",
}

var subjects = []string{
	"The capture service", "The ledger writer", "Our reconciliation job", "The new settlement path",
	"The retry worker", "The acquirer client", "The fraud pipeline", "The payout scheduler",
	"The replica set", "The tokenizer", "The export job", "The canary fleet", "The webhook dispatcher",
	"The FX cache", "The dispute service", "The partner gateway", "The archive job", "The backfill",
}

// verbs say what a subject does; none is the opposite of another, so
// that units about one subject do not contradict each other by their
// verbs alone (detection would find that: docs/detection.md).
var verbs = []string{
	"keeps", "samples", "retries", "buffers", "indexes", "audits", "tags", "times out on",
	"reorders", "deduplicates", "batches", "throttles", "logs", "traces", "counts", "replays",
}

var objects = []string{
	"duplicate captures", "late webhooks", "the nightly batch", "partial refunds", "stale FX rates",
	"the idempotency window", "cross-region writes", "out-of-order events", "expired tokens",
	"the p99 budget", "merchant payouts", "chargeback evidence", "the settlement file", "hot partitions",
	"retry storms", "the audit trail", "orphaned ledger rows", "currency rounding errors",
}

// clauses say when; they hold no number, so that the only values units
// state are the measures below.
var clauses = []string{
	"when the acquirer answers after the timeout", "during the dual-write phase", "under holiday peak load",
	"after the read switch", "if the replica lags behind the primary", "for merchants on the legacy plan",
	"when the month closes", "while the backfill runs", "in the EU region only",
	"once the canary takes its share of traffic", "before the freeze", "with the current pool size",
	"since the deploy on Tuesday", "according to last week's load test", "in some of the runs we traced",
}

var hedges = []string{
	"We measured this twice.", "The sample is small.", "This matches the incident review.",
	"The vendor's documentation says otherwise.", "Needs a second look by someone on payments.",
	"Confirmed against production logs.", "The dashboards lag by a day, so treat this as provisional.",
	"Two independent traces agree.", "This contradicts the runbook.", "The old monolith hid this.",
}

var words = strings.Fields(`ledger capture refund payout webhook retry latency replica shard partition
	batch window budget threshold merchant acquirer token fingerprint settlement dispute evidence region
	canary cutover rollback backfill archive export schema index query cache timeout pool queue worker
	scheduler alert metric trace span log incident runbook owner review decision risk cost estimate`)

var headings = []string{"Summary", "Evidence", "Method", "Findings", "Risks", "Open questions",
	"Proposal", "What changes", "Numbers", "Next steps", "Background", "Caveats"}

var langs = []string{"go", "sql", "yaml", "json", "bash"}

// text builds one unit's markdown.
type text struct {
	r *rand.Rand
	b strings.Builder
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// contentSize draws a content length in bytes.
func contentSize(r *rand.Rand) int {
	if r.IntN(longDocEvery) == 0 {
		return 4<<10 + r.IntN(36<<10)
	}
	n := int(medianBytes * math.Exp(r.NormFloat64()*sizeSigma))
	return max(minBytes, min(maxBytes, n))
}

// Markdown returns about size bytes of markdown like a generated unit's
// (for size in the kilobytes: headings, paragraphs, lists, tables, code
// and quotes). The same seed gives the same text.
func Markdown(seed uint64, size int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	return markdown(r, pick(r, topics), size)
}

// markdown writes about size bytes of markdown on topic: a sentence, a
// paragraph, or for larger sizes a document with lists, tables, code and
// quotes.
func markdown(r *rand.Rand, topic string, size int) string {
	t := &text{r: r}
	t.b.Grow(size + 512)
	t.sentenceAbout(topic)
	if size < 160 {
		return t.b.String()
	}
	t.sentence()
	for t.b.Len() < size {
		left := size - t.b.Len()
		t.b.WriteString("\n\n")
		switch k := r.IntN(20); {
		case size > 2000 && k < 3:
			t.b.WriteString("## ")
			t.b.WriteString(pick(r, headings))
			t.b.WriteString("\n\n")
			t.paragraph(left)
		case k < 9 || left < 120:
			t.paragraph(left)
		case k < 13:
			t.list(left)
		case k < 15:
			t.table(left)
		case k < 18:
			t.code(left)
		default:
			t.b.WriteString("> ")
			t.sentence()
			t.sentence()
		}
	}
	return t.b.String()
}

func (t *text) sentenceAbout(topic string) {
	r := t.r
	s := pick(r, subjects)
	switch r.IntN(4) {
	case 0:
		t.b.WriteString("On " + topic + ": " + strings.ToLower(s[:1]) + s[1:])
	case 1:
		t.b.WriteString("About " + topic + ", " + strings.ToLower(s[:1]) + s[1:])
	default:
		t.b.WriteString(s)
	}
	verb, object, clause := pick(r, verbs), pick(r, objects), pick(r, clauses)
	t.b.WriteString(" " + verb + " **" + object + "** " + clause)
	draw := r.IntN(900)
	unit := pick(r, []string{"ms", "%", "req/s", "rows", "events", "retries"}) // one of each kind of measure
	t.b.WriteString(" (" + strconv.Itoa(measured(draw, unit)) + " " + unit + "). ")
	t.b.WriteString(pick(r, hedges))
}

// tableBefore and tableAfter are the sizes every table states.
const tableBefore, tableAfter = 512, 512

// outlierEvery is how rarely a measure a unit states disagrees with what
// the other units say of the same thing: a team's field holds a few
// contradictions nobody declared, not one in every unit.
const outlierEvery = 300

// measured is the value units state of what the words name: the same in
// every unit, but for one draw in outlierEvery, which states another
// (draw is the unit's random draw, 0 to 899). Units measure different
// things with one unit of measure, and the detector cannot always tell
// them apart: one value each keeps their disagreements to the outliers.
func measured(draw int, words ...string) int {
	h := fnv.New32a()
	for _, w := range words {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	v := 1 + int(h.Sum32()%900)
	if draw%outlierEvery == 0 {
		v = v*3 + 7
	}
	return v
}

func (t *text) sentence() {
	r := t.r
	t.b.WriteByte(' ')
	t.b.WriteString(pick(r, subjects))
	t.b.WriteString(" " + pick(r, verbs) + " ")
	if r.IntN(3) == 0 {
		t.b.WriteString("`" + pick(r, words) + "_" + pick(r, words) + "`")
	} else {
		t.b.WriteString(pick(r, objects))
	}
	t.b.WriteString(" " + pick(r, clauses) + ".")
}

func (t *text) paragraph(left int) {
	n := 2 + t.r.IntN(4)
	if left < 200 {
		n = 1
	}
	for range n {
		t.sentence()
	}
}

func (t *text) list(left int) {
	r := t.r
	n := 2 + r.IntN(5)
	ordered := r.IntN(3) == 0
	for i := range n {
		if ordered {
			t.b.WriteString(strconv.Itoa(i+1) + ". ")
		} else {
			t.b.WriteString("- ")
		}
		t.b.WriteString(pick(r, subjects) + " " + pick(r, verbs) + " " + pick(r, objects))
		if left > 400 && r.IntN(2) == 0 {
			t.b.WriteString(" " + pick(r, clauses))
		}
		if i < n-1 {
			t.b.WriteByte('\n')
		}
	}
}

func (t *text) table(left int) {
	r := t.r
	rows := 2 + r.IntN(4)
	if left > 2000 {
		rows += r.IntN(12)
	}
	t.b.WriteString("| " + pick(r, words) + " | before | after | change |\n|---|---:|---:|---:|")
	for range rows {
		// The draws of the values tables held when every unit's were its
		// own: a table now states what every table states (one size, in a
		// unit no sentence uses), so tables do not contradict each other.
		r.IntN(999)
		r.IntN(999)
		a, b := tableBefore, tableAfter
		t.b.WriteString("\n| " + pick(r, objects) + " | " + strconv.Itoa(a) + " KB | " + strconv.Itoa(b) + " KB | " +
			strconv.FormatFloat(float64(b)/float64(a), 'f', 1, 64) + "x |")
	}
}

func (t *text) code(left int) {
	r := t.r
	lang := pick(r, langs)
	lines := 3 + r.IntN(6)
	if left > 2000 {
		lines += r.IntN(30)
	}
	t.b.WriteString("```" + lang + "\n")
	for i := range lines {
		w1, w2, n := pick(r, words), pick(r, words), r.IntN(5000)
		switch lang {
		case "go":
			if i == 0 {
				t.b.WriteString("func " + w1 + strings.ToUpper(w2[:1]) + w2[1:] + "(ctx context.Context) error {\n")
				continue
			}
			t.b.WriteString("\tif err := " + w1 + "." + strings.ToUpper(w2[:1]) + w2[1:] + "(ctx, " + strconv.Itoa(n) + "); err != nil {\n\t\treturn err\n\t}\n")
		case "sql":
			t.b.WriteString("SELECT " + w1 + "_id, count(*) FROM " + w2 + "s WHERE created_at > now() - interval '" + strconv.Itoa(1+n%30) + " days' GROUP BY 1;\n")
		case "yaml":
			t.b.WriteString(w1 + "_" + w2 + ": " + strconv.Itoa(n) + "\n")
		case "json":
			t.b.WriteString(`{"` + w1 + `": "` + w2 + `", "count": ` + strconv.Itoa(n) + "}\n")
		default:
			t.b.WriteString("arbiter-" + w1 + " --" + w2 + " " + strconv.Itoa(n) + "\n")
		}
	}
	if lang == "go" {
		t.b.WriteString("\treturn nil\n}\n")
	}
	t.b.WriteString("```")
}
