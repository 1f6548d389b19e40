package akashiklog

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// EntryMarkdown renders an entry object as markdown, deterministically:
//
//  1. a non-empty string "title" becomes a "### " heading (newlines folded);
//  2. the first non-empty string among summary, text, content and body (in
//     that order) becomes the lead paragraph, verbatim, since it is usually
//     prose or markdown already;
//  3. every other primitive field goes into a "| key | value |" table, with
//     "|" escaped and newlines as <br>;
//  4. every object or array field follows as a **key** label over an
//     indented ```json block.
//
// Fields used in 1 and 2 are not repeated in 3. Keys are ordered topic
// first, then sorted. A value that is not a JSON object is shown as a single
// fenced block.
func EntryMarkdown(raw json.RawMessage) string {
	fields, ok := objectFields(raw)
	if !ok {
		return fenced("json", indented(raw))
	}
	if len(fields) == 0 {
		return "_(empty entry)_\n"
	}
	var sections []string
	used := map[string]bool{}
	if title, ok := stringValue(fields["title"]); ok && strings.TrimSpace(title) != "" {
		sections = append(sections, "### "+strings.Join(strings.Fields(title), " "))
		used["title"] = true
	}
	for _, k := range []string{"summary", "text", "content", "body"} {
		if lead, ok := stringValue(fields[k]); ok && strings.TrimSpace(lead) != "" {
			sections = append(sections, strings.TrimSpace(lead))
			used[k] = true
			break
		}
	}

	var rows []string
	var nested []string
	for _, k := range entryKeys(fields) {
		v := fields[k]
		switch {
		case used[k]:
		case kindOf(v).primitive():
			rows = append(rows, "| "+tableCell(escapeInline(k))+" | "+tableCell(cellValue(v))+" |")
		default:
			nested = append(nested, "**"+escapeInline(k)+"**\n\n"+strings.TrimSuffix(fenced("json", indented(v)), "\n"))
		}
	}
	if len(rows) > 0 {
		sections = append(sections, "| key | value |\n| --- | --- |\n"+strings.Join(rows, "\n"))
	}
	sections = append(sections, nested...)
	return strings.Join(sections, "\n\n") + "\n"
}

// entryKeys returns the keys topic first, then in sorted order.
func entryKeys(fields map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "topic" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if _, ok := fields["topic"]; ok {
		keys = append([]string{"topic"}, keys...)
	}
	return keys
}

// cellValue shows a primitive as text: strings unquoted ("" when empty),
// numbers, booleans and null as written.
func cellValue(v json.RawMessage) string {
	if s, ok := stringValue(v); ok {
		if s == "" {
			return `""`
		}
		return s
	}
	return string(v)
}

var cellReplacer = strings.NewReplacer("\r\n", "<br>", "\r", "<br>", "\n", "<br>", "|", `\|`)

func tableCell(s string) string { return cellReplacer.Replace(s) }

var inlineReplacer = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`,
)

// escapeInline keeps a key from being read as markdown emphasis, code or links.
func escapeInline(s string) string { return inlineReplacer.Replace(s) }

func indented(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// fenced wraps body in a code fence longer than any backtick run inside it.
func fenced(lang, body string) string {
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(body, "\n") + "\n" + fence + "\n"
}
