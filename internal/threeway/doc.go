// Package threeway compares two revisions of a markdown text with the
// earlier text both revise — their common ancestor, the base — word by
// word, and suggests a merge of them: what only one side changed is
// taken, what both changed alike is taken once, and what both changed
// differently is left as marked alternatives for a person to settle.
// Without an ancestor it compares the two texts alone: their common parts
// are taken and every difference is an alternative.
//
// [Compare] and [CompareTwo] are pure functions from texts to a
// [Comparison]: the texts cut into [Region]s, each tagged with a [Change]
// and holding its text in every version. A screen lays them out from
// [Comparison.Rows] (stretches that begin and end on a line in every
// version, so panes side by side scroll together); the command line
// prints [Comparison.Annotated]; [Comparison.Suggest] writes the
// suggested synthesis, and [Unsettled] counts the alternatives left in a
// text a person edited.
//
// # Markdown
//
// Texts are compared line by line first, then word by word inside the
// lines that differ, so a change never reaches across lines that match.
// Every line is a unit of change: a heading, a list item, a table row, a
// line of a fenced code block, a line of a paragraph. Inside a line, the
// units are words (letters and digits, with inner dots, commas, hyphens
// and apostrophes, so 0.004, 6,412,880 and half-even are one word each),
// runs of spaces, single punctuation marks (a table's cell separator |
// among them), a line's leading markup (#, -, 1., >) and a code fence
// line as a whole. A changed table cell changes only its words.
//
// The differences themselves come from github.com/aymanbagabas/go-udiff:
// its lcs package diffs the lines and the words (as sequences of
// strings), and its Merge combines the two sides' edits of one stretch of
// the base, or reports that they collide.
//
// # The annotated text
//
// [Comparison.Annotated] writes every version's text in one, readable
// without colour. Unchanged text is written as it is; a changed stretch
// is written as groups, the base's first:
//
//	[base: 40][A: 55]          A changed 40 to 55; B kept 40
//	[base: 40][B: 38]          B changed it; A kept it
//	[base: 40][A+B: 45]        both changed it to 45
//	[base: 40][A: 55][B: 38]   both changed it, differently: disputed
//	[A: and tea]               only A has it (A added it)
//	[base: in the lab][A deleted]
//
// A group with nothing in the base leaves the base group out. Without an
// ancestor there are no base groups: [A: 55][B: 38] is a difference, and
// [A: and tea] is text only A has. When a changed stretch is whole lines,
// the groups stand on one line, without the stretch's last line break.
// Text of a unit that would read as a group opener ("[A:", "[base:", …)
// is written with a backslash before its bracket.
//
// # The suggested synthesis
//
// [Comparison.Suggest] writes the merged text. Every line that holds a
// disputed stretch is written twice, between conflict markers of their
// own lines, as git writes a conflict:
//
//	<<<<<<< A
//	| eu-west | 55 ms |
//	=======
//	| eu-west | 38 ms |
//	>>>>>>> B
//
// Each alternative is the lines as that side wrote them: where one side
// changed a word of a disputed line and the other side disputes another
// word of it, the annotated text shows both, but the synthesis never
// suggests a line neither side wrote. The person keeps one alternative,
// or writes their own, and deletes the marker lines. A disputed table cell
// offers its whole row twice (a table cannot hold the markers), and a
// disputed code line is marked inside its fence.
//
// [Unsettled] counts the alternatives left in a text: a line beginning
// with <<<<<<< opens one, and a line beginning with >>>>>>> that closes
// none counts as one too. A unit whose own text has such lines therefore
// counts as unsettled until a person looks at it.
//
// # Terminal safety
//
// The package neither cleans nor escapes control characters: callers
// that show its output on a terminal pass each text through
// internal/safetext first (the command line does, and cleans what it
// prints again); the markers it adds are printable ASCII.
package threeway
