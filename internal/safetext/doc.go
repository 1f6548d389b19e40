// Package safetext is the one sanitizer for text that came from the field.
//
// Everything an agent wrote — ids, roles, descriptions, unit content,
// rationales — passes through [Line] or [Block] before it reaches a terminal,
// whether through the TUI or plain CLI output.
//
// # Invariant
//
// The result of Line and Block is valid UTF-8 and contains:
//
//   - no rune below U+0020, except '\n' in Block output;
//   - no DEL (U+007F) and no C1 control (U+0080–U+009F);
//   - no bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069) and no other invisible format character listed in
//     visible.go (zero-width space, word joiner, BOM, tag characters, …);
//   - no U+2028 or U+2029.
//
// Sanitizing is idempotent: Block(Block(s)) == Block(s) and
// Line(Line(s)) == Line(s). Text that needs no change — printable ASCII
// (plus '\n' for Block), ordinary prose in any script — is returned as it
// is, without allocating. The work is one linear pass.
//
// For huge units, cut first with [Truncate], which never splits a rune.
//
// # What the reader sees instead
//
// Nothing is silently dropped: a reviewer should be able to see that an agent
// tried something.
//
//   - C0 controls become their Control Pictures (NUL → ␀, BEL → ␇,
//     backspace → ␈, ESC → ␛, lone CR → ␍); DEL becomes ␡.
//   - An escape sequence is therefore shown inert: "\x1b[31m" reads "␛[31m",
//     an OSC 52 clipboard write reads "␛]52;c;…␇". Without its ESC, the rest
//     of a sequence is plain text; any control inside it is shown as a
//     picture too, so the reader sees the whole attempt and nothing runs.
//   - C1 controls, bidi controls and invisible characters become a marker
//     such as <U+009B> or <U+202E>.
//   - Invalid UTF-8 bytes become U+FFFD.
//   - "\r\n", U+2028 and U+2029 are line breaks: '\n' in Block, one space in
//     Line. A tab is four spaces in Block and one space in Line.
package safetext
